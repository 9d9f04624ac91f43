package symfile

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of an HTTPSupplier (docs/limits.md), suited to a CI step: a
// server that stalls or trickles costs one rate window, not minutes per
// module.
const (
	// DefaultDownloadTimeout bounds one request, body included.
	DefaultDownloadTimeout = 2 * time.Minute
	// DefaultTotalTimeout bounds all the downloads of a supplier.
	DefaultTotalTimeout = 5 * time.Minute
	// DefaultMinRate and DefaultRateWindow: a download that receives less
	// than DefaultMinRate bytes per second over a window (waiting for the
	// response headers included) is abandoned, and its server is not
	// asked again.
	DefaultMinRate    = 16 << 10
	DefaultRateWindow = 10 * time.Second
	// DefaultMaxDownload bounds the size of one downloaded symbol file.
	DefaultMaxDownload = 4 << 30
	// maxRedirects bounds the redirects followed for one request.
	maxRedirects = 10
)

// ErrTooLarge reports a symbol file larger than the download bound.
var ErrTooLarge = errors.New("symbol file larger than the download limit")

// ErrServerDown reports a request not made because an earlier request to
// the same server got no response.
var ErrServerDown = errors.New("symbol server unreachable")

// ErrTooSlow reports a download abandoned because the server sent less
// than the minimum rate (WithMinRate); the server is not asked again.
var ErrTooSlow = errors.New("symbol server too slow")

// ErrDownloadBudget reports a request not made, or cut short, because the
// supplier's total download time (WithTotalTimeout) was spent.
var ErrDownloadBudget = errors.New("symbol download time budget spent")

// DownloadError reports a failed symbol download other than "not found": a
// network error, a timeout, an unexpected HTTP status, a file over the size
// bound or one that is not a symbol file. The walker treats the module as
// having no symbols; a caller may print the error as a warning.
type DownloadError struct {
	URL    string // the URL requested
	Status int    // the HTTP status, 0 when no response was read
	Err    error
}

func (e *DownloadError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("symbol download %s: HTTP status %d: %v", e.URL, e.Status, e.Err)
	}
	return fmt.Sprintf("symbol download %s: %v", e.URL, e.Err)
}

func (e *DownloadError) Unwrap() error { return e.Err }

// HTTPOption configures an HTTPSupplier.
type HTTPOption func(*HTTPSupplier)

// WithTrace makes the supplier report every cache path and URL it tries
// for a module, and what came of it (nil: used), to trace; for
// --verbose=debug.
func WithTrace(trace func(m ModuleKey, where string, err error)) HTTPOption {
	return func(s *HTTPSupplier) { s.trace = trace }
}

// WithTimeout sets the bound on one request, including reading the body.
func WithTimeout(d time.Duration) HTTPOption {
	return func(s *HTTPSupplier) { s.timeout = d }
}

// WithTotalTimeout bounds the time all downloads of the supplier may take
// together, from its creation: a dump with hundreds of modules on a slow
// server would otherwise wait up to the per-request timeout for each. Once
// it is spent, no request is made and the rest of the modules are walked
// without symbols (the cache is still read). 0 means no bound.
func WithTotalTimeout(d time.Duration) HTTPOption {
	return func(s *HTTPSupplier) { s.total = d }
}

// WithMinRate sets the slowest download kept: less than rate bytes per
// second over any window abandons it (ErrTooSlow) and the server is not
// asked again. A rate of 0 turns the check off.
func WithMinRate(rate int64, window time.Duration) HTTPOption {
	return func(s *HTTPSupplier) { s.minRate, s.rateWindow = rate, window }
}

// WithMaxDownload sets the largest symbol file, in bytes, that is downloaded.
func WithMaxDownload(n int64) HTTPOption {
	return func(s *HTTPSupplier) { s.maxSize = n }
}

// WithTransport sets the transport of the HTTP client (the default is
// http.DefaultTransport).
func WithTransport(rt http.RoundTripper) HTTPOption {
	return func(s *HTTPSupplier) { s.transport = rt }
}

// HTTPSupplier downloads symbol files from symbol servers in Breakpad's
// (and Mozilla's) layout,
// <url>/<debug_file base>/<debug_id>/<debug_file base with .pdb replaced by .sym, else + .sym>,
// falling back to code_file / code_id as NewDirSupplier does. Downloads
// are stored under a cache directory in the same layout and read from there
// first, so a later process does not download them again.
//
// It is safe for concurrent use: each module is asked for at most once, and
// each file is fetched at most once, however many threads ask at the same
// time. No path built from a dump's module names leaves the cache directory.
type HTTPSupplier struct {
	urls      []*url.URL
	cacheDir  string
	timeout   time.Duration
	total     time.Duration // WithTotalTimeout
	deadline  time.Time     // creation + total, zero when unbounded
	maxSize   int64
	transport http.RoundTripper

	minRate    int64         // bytes per second, WithMinRate
	rateWindow time.Duration // over which minRate is measured
	partialDir string        // downloads in progress: cacheDir/.partial
	cleanOnce  sync.Once     // removes partial files of earlier processes
	client     *http.Client
	index      *IndexDir                                  // WithIndex
	trace      func(m ModuleKey, where string, err error) // WithTrace

	modules onceMap[ModuleKey]
	files   onceMap[string] // by path relative to the cache directory

	mu sync.Mutex // guards down
	// down records, per server, the first request that got no response at
	// all (refused, unreachable, timed out): the server is not asked again,
	// so that a dump with hundreds of modules does not wait out the timeout
	// for each of them.
	down map[*url.URL]error
}

// NewHTTPSupplier returns a Supplier over the symbol servers at urls, tried
// in order, caching downloads under cacheDir. Each URL must be absolute with
// the scheme http or https; cacheDir must not be empty (it is created when
// the first file is downloaded).
func NewHTTPSupplier(urls []string, cacheDir string, opts ...HTTPOption) (*HTTPSupplier, error) {
	if cacheDir == "" {
		return nil, errors.New("symfile: symbol server needs a cache directory")
	}
	s := &HTTPSupplier{
		cacheDir:   cacheDir,
		timeout:    DefaultDownloadTimeout,
		total:      DefaultTotalTimeout,
		maxSize:    DefaultMaxDownload,
		minRate:    DefaultMinRate,
		rateWindow: DefaultRateWindow,
		partialDir: filepath.Join(cacheDir, partialDirName),
		down:       make(map[*url.URL]error),
	}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("symfile: symbol server URL %q: %w", raw, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("symfile: symbol server URL %q: want http:// or https:// and a host", raw)
		}
		u.Path = strings.TrimRight(u.Path, "/")
		u.RawPath = ""
		s.urls = append(s.urls, u)
	}
	for _, o := range opts {
		o(s)
	}
	if s.total > 0 {
		s.deadline = time.Now().Add(s.total)
	}
	s.client = &http.Client{
		Transport: s.transport,
		Timeout:   s.timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return &redirectError{fmt.Sprintf("more than %d redirects", maxRedirects)}
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return &redirectError{fmt.Sprintf("redirect to %q: only http and https are followed", req.URL.Scheme)}
			}
			return nil
		},
	}
	return s, nil
}

// Symbols implements Supplier. It returns an error wrapping ErrNotFound when
// neither the cache nor any server has the module's symbols (HTTP 404), a
// *DownloadError when a server failed otherwise, and the File with a
// *CorruptError when the file has malformed lines.
func (s *HTTPSupplier) Symbols(m ModuleKey) (*File, error) {
	return s.modules.get(m, func() (*File, error) { return s.find(m) })
}

func (s *HTTPSupplier) find(m ModuleKey) (*File, error) {
	var failures []error
	for _, rel := range relativeSymbolPaths(m) {
		f, err := s.file(rel)
		if s.trace != nil {
			s.trace(m, rel+" (cache "+s.cacheDir+", servers "+strings.Join(s.urlStrings(), ", ")+")", err)
		}
		if err == nil || !errors.Is(err, ErrNotFound) {
			var de *DownloadError
			if !errors.As(err, &de) {
				return f, err
			}
			failures = append(failures, err)
		}
	}
	if len(failures) > 0 {
		return nil, errors.Join(failures...)
	}
	return nil, fmt.Errorf("%w: %s %s", ErrNotFound, pathBase(m.DebugFile), m.DebugID)
}

// relativeSymbolPaths lists the slash-separated paths, relative to a symbol
// store, at which m's symbols may be: the debug names, then the code names.
// Names that are not safe path elements are skipped.
func relativeSymbolPaths(m ModuleKey) []string {
	var out []string
	add := func(file, id string) {
		base := pathBase(file)
		if !safeComponent(base) || !safeComponent(id) {
			return
		}
		rel := base + "/" + id + "/" + symName(base)
		for _, r := range out {
			if r == rel {
				return
			}
		}
		out = append(out, rel)
	}
	add(m.DebugFile, m.DebugID)
	add(m.CodeFile, m.CodeID)
	return out
}

// file returns the parsed file at rel: from the cache, else downloaded. It
// runs at most once per path.
func (s *HTTPSupplier) file(rel string) (*File, error) {
	return s.files.get(rel, func() (*File, error) { return s.fetch(rel) })
}

func (s *HTTPSupplier) fetch(rel string) (*File, error) {
	local := filepath.Join(s.cacheDir, filepath.FromSlash(rel))
	if !within(s.cacheDir, local) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, rel)
	}
	// A cached file is used when it parses cleanly. One that does not (a
	// cache written by an older version, a disk error) is fetched again;
	// it is kept, and used, only when no server gives a replacement.
	var cached *File
	var cachedErr error
	if fi, err := os.Stat(local); err == nil && fi.Mode().IsRegular() {
		cached, cachedErr = openCorrupt(s.index, local)
		if cachedErr == nil {
			return cached, nil
		}
	}
	var failures []error
	for _, u := range s.urls {
		f, err := s.download(u, rel, local)
		if err == nil || errors.As(err, new(*CorruptError)) {
			if cached != nil {
				cached.Close()
			}
			return f, err
		}
		if !errors.Is(err, ErrNotFound) {
			failures = append(failures, err)
		}
	}
	if cachedErr != nil {
		return cached, cachedErr
	}
	if len(failures) > 0 {
		return nil, errors.Join(failures...)
	}
	return nil, fmt.Errorf("%w: %s", ErrNotFound, rel)
}

// openCorrupt opens a symbol file (through index, when not nil), reporting
// any failure as a *CorruptError.
func openCorrupt(index *IndexDir, path string) (*File, error) {
	f, err := index.Open(path)
	var ce *CorruptError
	if err != nil && !errors.As(err, &ce) {
		err = &CorruptError{File: path, Err: err}
	}
	return f, err
}

// download fetches base/rel into local and returns it parsed. The body is
// written to a file in the cache's partial directory (see cleanPartial) and
// parsed there; only a file that parses without error is renamed into the
// cache, so that nothing half-written or corrupt is ever cached. A corrupt
// file is still returned, with its *CorruptError, for this run.
func (s *HTTPSupplier) download(base *url.URL, rel, local string) (*File, error) {
	u := *base
	u.Path = base.Path + "/" + rel
	target := u.String()
	fail := func(status int, err error) error { return &DownloadError{URL: target, Status: status, Err: err} }

	deadline := time.Now().Add(s.timeout)
	if !s.deadline.IsZero() {
		if !time.Now().Before(s.deadline) {
			return nil, fail(0, fmt.Errorf("%w: not asked (%v in all)", ErrDownloadBudget, s.total))
		}
		deadline = minTime(deadline, s.deadline)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	ctx, tooSlow := context.WithCancelCause(ctx)
	defer tooSlow(nil)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fail(0, err)
	}
	s.mu.Lock()
	downErr := s.down[base]
	s.mu.Unlock()
	if downErr != nil {
		return nil, fail(0, fmt.Errorf("%w: not asked after an earlier failure: %w", ErrServerDown, downErr))
	}
	var received atomic.Int64
	defer s.watchRate(&received, tooSlow)()
	// serverFailed marks the server down after a failure that is its own
	// (too slow, or, when noResponse, no answer at all), not our budget's.
	serverFailed := func(err error, noResponse bool) error {
		if cause := context.Cause(ctx); errors.Is(cause, ErrTooSlow) {
			err = cause
		} else if s.budgetSpent(deadline) {
			return fmt.Errorf("%w: %w", ErrDownloadBudget, err)
		} else if !noResponse {
			return err
		}
		s.mu.Lock()
		if s.down[base] == nil {
			s.down[base] = err
		}
		s.mu.Unlock()
		return err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		if errors.As(err, new(*redirectError)) { // a bad redirect is about one file
			return nil, fail(0, err)
		}
		return nil, fail(0, serverFailed(err, true))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("%w: %s", ErrNotFound, target)
	case resp.StatusCode != http.StatusOK:
		return nil, fail(resp.StatusCode, errors.New(http.StatusText(resp.StatusCode)))
	case resp.ContentLength > s.maxSize:
		return nil, fail(resp.StatusCode, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, resp.ContentLength, s.maxSize))
	}

	body := bufio.NewReaderSize(&countingReader{resp.Body, &received}, 64<<10)
	// A server that answers 200 with an HTML page must not poison the cache.
	head, _ := body.Peek(len(pMODULE))
	if !bytes.Equal(head, pMODULE) {
		return nil, fail(resp.StatusCode, errors.New("response is not a Breakpad symbol file (no MODULE line)"))
	}
	tmp, err := s.createPartial()
	if err != nil {
		return nil, fail(0, fmt.Errorf("cache: %w", err))
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	n, err := io.Copy(tmp, io.LimitReader(body, s.maxSize+1))
	if err != nil {
		return nil, fail(resp.StatusCode, serverFailed(err, false))
	}
	if n > s.maxSize {
		return nil, fail(resp.StatusCode, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, s.maxSize))
	}
	if err := tmp.Close(); err != nil {
		return nil, fail(0, fmt.Errorf("cache: %w", err))
	}
	f, err := openCorrupt(nil, tmp.Name()) // in memory: the index is keyed to the cached path
	if err != nil {
		// Not cached: the next run asks again. The mapping outlives the
		// removal of the partial file.
		if f != nil {
			f.name = target
		}
		if ce, ok := err.(*CorruptError); ok {
			ce.File = target
		}
		return f, err
	}
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		f.Close()
		return nil, fail(0, fmt.Errorf("cache: %w", err))
	}
	removeOldDownloads(filepath.Dir(local))
	if err := os.Rename(tmp.Name(), local); err != nil {
		f.Close()
		return nil, fail(0, fmt.Errorf("cache: %w", err))
	}
	committed = true
	f.name = local
	if s.index != nil {
		// Served through the index from now on, as a cached file is.
		f.Close()
		return openCorrupt(s.index, local)
	}
	return f, nil
}

// partialDirName is the directory, under the cache directory, where
// downloads are written until they are parsed and renamed into place.
const partialDirName = ".partial"

// createPartial creates a file for a download in the partial directory,
// named after this process so that a later process can tell a leftover of
// a crash from a download in progress.
func (s *HTTPSupplier) createPartial() (*os.File, error) {
	if err := os.MkdirAll(s.partialDir, 0o755); err != nil {
		return nil, err
	}
	s.cleanOnce.Do(s.cleanPartial)
	return os.CreateTemp(s.partialDir, strconv.Itoa(os.Getpid())+"-*.sym")
}

// cleanPartial removes the partial files that earlier processes left when
// they were killed: those of processes no longer running, and any older
// than a day.
func (s *HTTPSupplier) cleanPartial() {
	ents, err := os.ReadDir(s.partialDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		pidStr, _, ok := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if !processAlive(pid) || time.Since(info.ModTime()) > 24*time.Hour {
			os.Remove(filepath.Join(s.partialDir, e.Name()))
		}
	}
}

// removeOldDownloads removes, from a cache directory a download is about
// to be stored in, the .download-* files that versions before the partial
// directory wrote there and left behind when killed (up to 4 GiB each).
// Those older than an hour cannot belong to a download still running.
func removeOldDownloads(dir string) {
	old, _ := filepath.Glob(filepath.Join(dir, ".download-*"))
	for _, p := range old {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > time.Hour {
			os.Remove(p)
		}
	}
}

// countingReader counts the bytes read from r in n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// watchRate cancels a download, with ErrTooSlow as the cause, when fewer
// than minRate bytes per second arrive in a rate window. It returns the
// function that stops watching.
func (s *HTTPSupplier) watchRate(received *atomic.Int64, cancel context.CancelCauseFunc) func() {
	if s.minRate <= 0 || s.rateWindow <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(s.rateWindow)
		defer t.Stop()
		var last int64
		for {
			select {
			case <-done:
				return
			case <-t.C:
				n := received.Load()
				if float64(n-last) < float64(s.minRate)*s.rateWindow.Seconds() {
					cancel(fmt.Errorf("%w: %d bytes in %v, below %d bytes/s", ErrTooSlow, n-last, s.rateWindow, s.minRate))
					return
				}
				last = n
			}
		}
	}()
	return func() { close(done) }
}

// budgetSpent reports whether a request with the given deadline failed
// because the total budget, not the server, ended it.
func (s *HTTPSupplier) budgetSpent(deadline time.Time) bool {
	return !s.deadline.IsZero() && deadline.Equal(s.deadline) && !time.Now().Before(s.deadline)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// redirectError is a redirect that was not followed.
type redirectError struct{ msg string }

func (e *redirectError) Error() string { return e.msg }

// ChainSupplier asks its suppliers in order, typically local symbol roots
// first and then a symbol server, and returns the first answer that is not
// "not found". A supplier that failed otherwise (a *DownloadError) does not
// stop the search; its error is returned only when no later supplier has
// the symbols.
type ChainSupplier []Supplier

// Symbols implements Supplier.
func (c ChainSupplier) Symbols(m ModuleKey) (*File, error) {
	var failures []error
	for _, s := range c {
		f, err := s.Symbols(m)
		if err == nil || errors.As(err, new(*CorruptError)) {
			return f, err
		}
		if !errors.Is(err, ErrNotFound) {
			failures = append(failures, err)
		}
	}
	if len(failures) > 0 {
		return nil, errors.Join(failures...)
	}
	return nil, fmt.Errorf("%w: %s %s", ErrNotFound, pathBase(m.DebugFile), m.DebugID)
}

// urlStrings lists the servers, for traces.
func (s *HTTPSupplier) urlStrings() []string {
	out := make([]string, len(s.urls))
	for i, u := range s.urls {
		out[i] = u.String()
	}
	return out
}
