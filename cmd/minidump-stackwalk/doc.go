// Command minidump-stackwalk prints the threads, stacks and modules of a
// minidump, in the formats of Breakpad's minidump_stackwalk.
//
// Usage:
//
//	minidump-stackwalk [flags] <minidump|microdump|core> [symbol-path|symbol-URL ...]
//
// The input may be a minidump, an Android microdump (text) or a Linux ELF
// core file (converted in memory as core2md does), each also gzip-, zstd-
// or xz-compressed, told by content; "-" reads it from standard input.
// core2md itself is the subcommand `minidump-stackwalk core2md`. Symbol paths are
// directories in Breakpad's layout or single .sym files; http(s) URLs (or
// --symbols-url) name symbol servers, cached in --symbols-cache.
//
// Output formats: the human report (default), -m (pipe-delimited machine
// format), -b (brief), -d (stack memory dump), -s (stack contents too),
// --json [--pretty] (rust-minidump's schema), --cyborg PATH (human report,
// JSON to PATH). -c and -t N choose threads; --breakpad-compat reproduces
// Breakpad's output exactly. -f junit, sarif and github write the dump for
// CI (with --baseline and --fail-on; docs/ci.md, ciformats_single.go).
// minidump-stackwalk --help lists every flag.
//
// "minidump-stackwalk batch PATH..." processes many inputs in one process
// (JSON Lines, crash signatures, summaries, an HTML report, shards and
// "batch merge": docs/batch.md, batch*.go; batch_adapter.go is its one
// link to the processor; ciformats.go its JUnit, SARIF and GitHub
// outputs; sigrules.go the signature and grouping rules).
//
// Exit status: 0 when the dump was processed, 1 when it could not be read or
// processed (what could be read is still printed) or when --fail-on fails
// its crash, 2 on a usage error.
package main
