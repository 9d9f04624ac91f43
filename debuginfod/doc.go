// Package debuginfod is a client of debuginfod servers (elfutils'
// protocol, run by the major Linux distributions): it fetches the ELF
// executable or the separate debug file of a GNU build id with
// GET <url>/buildid/<hex>/executable and .../debuginfo.
//
// URLs come from the caller (--debuginfod-url) or from DEBUGINFOD_URLS,
// read as elfutils reads it (ParseURLs). Servers are asked in order; the
// first file that is an ELF file with the requested build id is kept.
//
// Answers are untrusted. Downloads go through package fetch, the bounded
// path symbol servers use too (docs/limits.md): a timeout per request, the
// run's total time (--symbols-total-timeout), a rate floor, a size bound
// after any gzip Content-Encoding, a bound on how far that encoding
// inflates, retries of passing failures, and a server that is down (no
// answer, too slow, streaming past the bound, failing past the retries) is
// not asked again in the run. A download is written to a partial file of
// the cache directory and renamed into place only once it is an ELF file
// with the build id asked for (ErrWrongBuildID otherwise), so the cache
// never holds a partial or wrong file. A server's 404 is remembered for
// NegativeTTL (elfutils' cache_miss_s default, 600 s) so a walk does not
// ask again for every frame. The cache layout is
// elfutils': <cache>/<build id>/executable and .../debuginfo.
package debuginfod
