package symsrv

import (
	"net/http"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch/nethttp"
)

// The bounds of a supplier without a shared downloader (WithDownloader),
// for the tests: the commands set them on the run's fetch.Client.

// WithTotalTimeout bounds the time all downloads of the supplier may take
// together, from its creation: a dump with hundreds of modules on a slow
// server would otherwise wait up to the per-request timeout for each. Once
// it is spent, no request is made and the rest of the modules are walked
// without symbols (the cache is still read). 0 means no bound.
func WithTotalTimeout(d time.Duration) Option {
	return func(s *Supplier) { s.cfg.Total = d }
}

// WithMinRate sets the slowest download kept: less than rate bytes per
// second over any window abandons it (ErrTooSlow) and the server is not
// asked again. A rate of 0 turns the check off.
func WithMinRate(rate int64, window time.Duration) Option {
	return func(s *Supplier) { s.cfg.MinRate, s.cfg.RateWindow = rate, window }
}

// WithMaxDownload sets the largest symbol file, in bytes, that is downloaded.
func WithMaxDownload(n int64) Option {
	return func(s *Supplier) { s.cfg.MaxSize = n }
}

// WithTransport makes the supplier's requests with rt in the test's own
// process (the default is the helper program, fetch.HelperTransport).
func WithTransport(rt http.RoundTripper) Option {
	return func(s *Supplier) { s.cfg.Transport = nethttp.New(rt) }
}

// WithProgress makes the supplier report each download's progress to fn,
// from the goroutine reading it: at the start, as bytes arrive, and once
// with Done set at the end. fn must be quick and safe for concurrent use.
func WithProgress(fn func(DownloadProgress)) Option {
	return func(s *Supplier) { s.cfg.Progress = fn }
}
