// Package stackwalk is the library behind the minidump-stackwalk command:
// open a minidump, an Android microdump or a Linux ELF core, plain or
// gzip-, zstd- or xz-compressed, from a file or a reader (Open, OpenWith), walk
// and symbolize its threads into one processed model
// (Dump.Process, giving a *processor.ProcessState), and print that model in
// any of the command's formats with package report: Breakpad's human
// report (report.WriteHuman), its machine format (report.WriteMachine), the
// brief summary (report.WriteBrief) and rust-minidump's JSON
// (report.WriteStateJSON).
//
// Symbols come from any symfile.Supplier: symcompress.NewDirSupplier over
// Breakpad symbol stores (plain, .sym.gz or .sym.zst files), symsrv.NewSupplier for symbol servers, or a
// supplier of your own. A single stream of a minidump is read with the
// accessors of package minidump (Dump.Minidump).
//
// docs/architecture.md describes the flow from bytes to report.
package stackwalk
