// Package fetch is the one bounded download path of the symbol clients:
// symsrv's symbol servers (Breakpad, Microsoft and symbolicator layouts)
// and debuginfod. A Client holds the bounds of a run (docs/limits.md) and
// what it learnt of each server; Get makes one file's request under them
// and, once the caller's check accepts the body, renames it into an
// on-disk cache (a Store).
//
// The bounds: a timeout per request, a total time for all requests of the
// Client, a minimum rate over a window (header wait included), a size per
// file after decoding, a bound on how far a Content-Encoding: gzip body may
// inflate beside the bytes received, a number of requests in flight, and
// retries with backoff for passing failures (retry.go). A server whose
// failure would cost as much again for each file (no response, too slow,
// an answer streamed past the size bound, redirects in a loop, failures
// past the retries) is not asked again by the Client, and its requests in
// flight are cut short. A caller's context cancels a request too (batch
// --timeout).
//
// The Store is a cache directory's bookkeeping: a body is written to a
// partial file named after its process and host (partial.go), checked by
// the caller, and renamed into place, so that nothing half-written or
// unverified enters the cache and a cache can be shared by machines;
// definite misses (404, 410) are remembered for a TTL (miss.go).
//
// The requests themselves go through a Transport: by default the helper
// program minidump-stackwalk-fetch, run at the first request and spoken
// to over a pipe (HelperTransport, helperwire.go; ServeHelper is its
// side), so that the command links neither net/http nor TLS; package
// nethttp is the exchange over net/http the helper makes (its HTTP/1
// connections carry one request each, so that a server writing past its
// Content-Length cannot make Go's HTTP client log on stderr). Every bound
// above is the Client's, on this side of the pipe.
package fetch
