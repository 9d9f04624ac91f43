// Package symsrv is the symbol-server client: a symfile.Supplier that
// downloads Breakpad symbol files from HTTP symbol servers in Breakpad's
// (and Mozilla's) layout into an on-disk cache in the same layout, and
// reads them from there first.
//
// It is apart from package symfile so that the walkers, the processor and
// the printers, which read only symfile's types, do not link the download
// path (a test keeps it so). Neither links net/http or TLS: the requests
// are made by the helper program minidump-stackwalk-fetch (package fetch).
//
// Downloads go through package fetch, the one bounded download path it
// shares with debuginfod: bounded in time, rate and size (docs/limits.md),
// each file is requested once however many threads ask, at most
// WithDownloadJobs requests are in flight, and a server that does not
// answer, trickles, streams a file past the bound, redirects in a loop or
// fails past the retries is not asked again in the run. A download enters
// the cache only once it parses cleanly and its MODULE line names the
// module asked for (ErrWrongModule otherwise: the file is not used): it is
// written to a partial file named after its process and host, checked,
// and renamed into place; a cached file that does not parse or names
// another module is fetched again. HTTP/1 connections carry one request
// each, so a server writing past its Content-Length cannot make Go's HTTP
// client log on stderr; HTTP/2 ones are reused. Misses (404) are
// remembered in the cache for a TTL (recording one prunes the expired ones
// beside it); passing failures are retried with backoff; a gzip-encoded
// answer is decoded within an expansion bound; Prefetch runs requests in
// parallel (httpjobs.go); Mozilla Tecken's code-file/code-id lookup is asked last
// (httpcode.go). With WithPDBs it is a Microsoft-protocol client too: a
// Windows module's PDB or .pd_ cabinet is fetched, checked by the caller's
// converter and cached in the store layout (mspdb.go). With WithMachO a
// macOS module's dSYM DWARF file and binary are fetched in Sentry
// symbolicator's unified layout (xx/yyyy.../debuginfo, .../executable),
// each checked by the caller (its UUID) before it is cached in the same
// layout (macho.go). No path built from
// a dump's module names leaves the cache directory.
package symsrv
