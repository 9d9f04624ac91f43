// Package debuginfod is a client of debuginfod servers (elfutils'
// protocol, run by the major Linux distributions): it fetches the ELF
// executable or the separate debug file of a GNU build id with
// GET <url>/buildid/<hex>/executable and .../debuginfo.
//
// URLs come from the caller (--debuginfod-url) or from DEBUGINFOD_URLS,
// read as elfutils reads it (ParseURLs). Servers are asked in order; the
// first file that is an ELF file with the requested build id is kept.
//
// Answers are untrusted. A download is bounded in size (Content-Length and
// the bytes read) and in time, is written to a temporary file in the cache
// directory and renamed into place only once its build id is checked, so
// the cache never holds a partial or wrong file. A build id no server has
// is remembered for NegativeTTL (elfutils' cache_miss_s default, 600 s) so
// a walk does not ask again for every frame. The cache layout is
// elfutils': <cache>/<build id>/executable and .../debuginfo.
package debuginfod
