package symsrv

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/oncemap"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// Defaults of an Supplier (docs/limits.md), suited to a CI step: a
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

// moduleTag starts every Breakpad symbol file.
var moduleTag = []byte("MODULE ")

// ErrWrongModule reports a downloaded symbol file whose MODULE line names
// another module than the one asked for: it is neither used nor cached.
var ErrWrongModule = errors.New("symbol file of another module")

// ErrTooLarge reports a symbol file larger than the download bound.
var ErrTooLarge = errors.New("symbol file larger than the download limit")

// ErrServerDown reports a request not made, or cut short, because an
// earlier request to the same server found it unusable for the rest of
// the run: no response, too slow, an answer streamed past the download
// bound, or failures that outlasted the retries.
var ErrServerDown = errors.New("symbol server not used")

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
	Server string // the symbol server's URL, as given
	Status int    // the HTTP status, 0 when no response was read
	// ServerDown is set when the server is not asked again after this
	// failure (no response, too slow, oversized, failing past the
	// retries), or was not asked because of such a failure earlier: a
	// caller may warn once per server.
	ServerDown bool
	Err        error
}

func (e *DownloadError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("symbol download %s: HTTP status %d: %v", e.URL, e.Status, e.Err)
	}
	return fmt.Sprintf("symbol download %s: %v", e.URL, e.Err)
}

func (e *DownloadError) Unwrap() error { return e.Err }

// Option configures an Supplier.
type Option func(*Supplier)

// WithTrace makes the supplier report every cache path and URL it tries
// for a module, and what came of it (nil: used), to trace; for
// --verbose=debug.
func WithTrace(trace func(m symfile.ModuleKey, where string, err error)) Option {
	return func(s *Supplier) { s.trace = trace }
}

// WithTimeout sets the bound on one request, including reading the body.
func WithTimeout(d time.Duration) Option {
	return func(s *Supplier) { s.timeout = d }
}

// WithTotalTimeout bounds the time all downloads of the supplier may take
// together, from its creation: a dump with hundreds of modules on a slow
// server would otherwise wait up to the per-request timeout for each. Once
// it is spent, no request is made and the rest of the modules are walked
// without symbols (the cache is still read). 0 means no bound.
func WithTotalTimeout(d time.Duration) Option {
	return func(s *Supplier) { s.total = d }
}

// WithMinRate sets the slowest download kept: less than rate bytes per
// second over any window abandons it (ErrTooSlow) and the server is not
// asked again. A rate of 0 turns the check off.
func WithMinRate(rate int64, window time.Duration) Option {
	return func(s *Supplier) { s.minRate, s.rateWindow = rate, window }
}

// WithMaxDownload sets the largest symbol file, in bytes, that is downloaded.
func WithMaxDownload(n int64) Option {
	return func(s *Supplier) { s.maxSize = n }
}

// WithIndex makes the supplier open the files of its cache through an
// index directory (symfile.IndexDir.Open).
func WithIndex(index *symfile.IndexDir) Option {
	return func(s *Supplier) { s.index = index }
}

// WithTransport sets the transport of the HTTP client (the default is
// http.DefaultTransport).
func WithTransport(rt http.RoundTripper) Option {
	return func(s *Supplier) { s.transport = rt }
}

// Supplier downloads symbol files from symbol servers in Breakpad's
// (and Mozilla's) layout,
// <url>/<debug_file base>/<debug_id>/<debug_file base with .pdb replaced by .sym, else + .sym>,
// falling back to code_file / code_id as symfile.NewDirSupplier does. Downloads
// are stored under a cache directory in the same layout and read from there
// first, so a later process does not download them again.
//
// It is safe for concurrent use: each module is asked for at most once, and
// each file is fetched at most once, however many threads ask at the same
// time, with at most WithDownloadJobs requests in flight. No path built
// from a dump's module names leaves the cache directory. A server's 404 is
// remembered in the cache directory (WithMissTTL, httpmiss.go); a
// transient failure is retried (WithRetry, httpretry.go); a module whose
// debug and code paths miss is looked up by code file and id as Mozilla's
// Tecken serves it (httpcode.go).
type Supplier struct {
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
	host       string        // this host, as partial files name it
	cleanOnce  sync.Once     // removes partial files of earlier processes
	client     *http.Client
	index      *symfile.IndexDir                                  // WithIndex
	trace      func(m symfile.ModuleKey, where string, err error) // WithTrace

	missTTL  time.Duration          // WithMissTTL; 0: no negative cache
	retry    RetryPolicy            // WithRetry
	jobs     chan struct{}          // request slots, WithDownloadJobs
	progress func(DownloadProgress) // WithProgress
	// lookupClient does not follow redirects: a code-info lookup reads
	// the debug names from the redirect (httpcode.go).
	lookupClient *http.Client

	modules oncemap.Map[symfile.ModuleKey, *symfile.File]
	files   oncemap.Map[string, *symfile.File] // by path relative to the cache directory
	// pdbs converts a Windows module's PDB (WithPDBs, mspdb.go); nil: PDBs
	// are not asked for.
	pdbs func(path string, m symfile.ModuleKey) (*symfile.File, error)
	// machoCheck and machoSymbols check and read a macOS module's Mach-O
	// files (WithMachO, macho.go); nil: they are not asked for.
	machoCheck   func(path string, m symfile.ModuleKey) error
	machoSymbols func(binary, dsym string, m symfile.ModuleKey) (*symfile.File, error)
	lookups      oncemap.Map[string, *symfile.File] // code-info lookups, by path

	// servers holds each server's state for the supplier's run.
	servers map[*url.URL]*serverState
}

// serverState is what a supplier learnt of one server. A server whose
// failure would cost as much again for each module (no response, too
// slow, an answer streamed past the download bound, failures outlasting
// the retries) is not asked again, so that a dump with hundreds of modules
// does not pay the bounds for each. A miss (404) says nothing against a
// server.
type serverState struct {
	mu   sync.Mutex
	down error // the failure that put the server down, nil while it is up
	// ctx is cancelled, with the failure as cause, when the server goes
	// down: it cuts short the requests to it still in flight.
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// downErr returns the failure that put the server down, or nil.
func (st *serverState) downErr() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.down
}

// markDown records err as the failure that put the server down (the first
// one only) and cuts short its requests in flight.
func (st *serverState) markDown(err error) {
	st.mu.Lock()
	first := st.down == nil
	if first {
		st.down = err
	}
	st.mu.Unlock()
	if first {
		st.cancel(fmt.Errorf("%w: cut short after another request failed: %w", ErrServerDown, err))
	}
}

// NewSupplier returns a symfile.Supplier over the symbol servers at urls, tried
// in order, caching downloads under cacheDir. Each URL must be absolute with
// the scheme http or https; cacheDir must not be empty (it is created when
// the first file is downloaded).
func NewSupplier(urls []string, cacheDir string, opts ...Option) (*Supplier, error) {
	if cacheDir == "" {
		return nil, errors.New("symsrv: symbol server needs a cache directory")
	}
	s := &Supplier{
		cacheDir:   cacheDir,
		timeout:    DefaultDownloadTimeout,
		total:      DefaultTotalTimeout,
		maxSize:    DefaultMaxDownload,
		minRate:    DefaultMinRate,
		rateWindow: DefaultRateWindow,
		partialDir: filepath.Join(cacheDir, partialDirName),
		host:       hostName(),
		servers:    make(map[*url.URL]*serverState),
		missTTL:    DefaultMissTTL,
		retry:      DefaultRetry,
		jobs:       make(chan struct{}, DefaultDownloadJobs),
	}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("symsrv: symbol server URL %q: %w", raw, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("symsrv: symbol server URL %q: want http:// or https:// and a host", raw)
		}
		u.Path = strings.TrimRight(u.Path, "/")
		u.RawPath = ""
		s.urls = append(s.urls, u)
		st := &serverState{}
		st.ctx, st.cancel = context.WithCancelCause(context.Background())
		s.servers[u] = st
	}
	for _, o := range opts {
		o(s)
	}
	if s.total > 0 {
		s.deadline = time.Now().Add(s.total)
	}
	transport := &http1Closer{rt: s.transport}
	s.client = &http.Client{
		Transport: transport,
		Timeout:   s.timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return &redirectError{msg: fmt.Sprintf("more than %d redirects", maxRedirects), loop: true}
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return &redirectError{msg: fmt.Sprintf("redirect to %q: only http and https are followed", req.URL.Scheme)}
			}
			return nil
		},
	}
	s.lookupClient = &http.Client{
		Transport: transport,
		Timeout:   s.timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	return s, nil
}

// Symbols implements symfile.Supplier. It returns an error wrapping symfile.ErrNotFound when
// neither the cache nor any server has the module's symbols (HTTP 404), a
// *DownloadError when a server failed otherwise, and the symfile.File with a
// *symfile.CorruptError when the file has malformed lines.
func (s *Supplier) Symbols(m symfile.ModuleKey) (*symfile.File, error) {
	return s.modules.Get(m, func() (*symfile.File, error) { return s.find(m) })
}

func (s *Supplier) find(m symfile.ModuleKey) (*symfile.File, error) {
	var failures []error
	tecken := codeInfoPath(m)
	for _, rel := range relativeSymbolPaths(m) {
		get := s.file
		if rel == tecken {
			get = s.codeInfo // httpcode.go
		}
		f, err := get(rel, m)
		if s.trace != nil {
			s.trace(m, rel+" (cache "+s.cacheDir+", servers "+strings.Join(s.urlStrings(), ", ")+")", err)
		}
		if err == nil || !errors.Is(err, symfile.ErrNotFound) {
			var de *DownloadError
			if !errors.As(err, &de) {
				return f, err
			}
			failures = append(failures, err)
		}
	}
	for _, get := range []func(symfile.ModuleKey) (*symfile.File, error){s.pdbSymbols, s.machoFileSymbols} {
		// mspdb.go, macho.go
		if f, err := get(m); err == nil || !errors.Is(err, symfile.ErrNotFound) {
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
	return nil, fmt.Errorf("%w: %s %s", symfile.ErrNotFound, symfile.BaseName(m.DebugFile), m.DebugID)
}

// relativeSymbolPaths lists the slash-separated paths, relative to a symbol
// store, at which m's symbols may be: the debug names, then the code names.
// Names that are not safe path elements are skipped.
func relativeSymbolPaths(m symfile.ModuleKey) []string {
	var out []string
	add := func(file, id string) {
		base := symfile.BaseName(file)
		if !symfile.SafePathElement(base) || !symfile.SafePathElement(id) {
			return
		}
		rel := base + "/" + id + "/" + symfile.SymbolFileName(base)
		for _, r := range out {
			if r == rel {
				return
			}
		}
		out = append(out, rel)
	}
	add(m.DebugFile, m.DebugID)
	add(m.CodeFile, m.CodeID)
	if rel := codeInfoPath(m); rel != "" { // Tecken's lookup (httpcode.go)
		for _, r := range out {
			if r == rel {
				return out
			}
		}
		out = append(out, rel)
	}
	return out
}

// file returns the parsed file at rel: from the cache, else downloaded. It
// runs at most once per path.
// want is the module asked for, whose MODULE line a download must have.
func (s *Supplier) file(rel string, want symfile.ModuleKey) (*symfile.File, error) {
	return s.files.Get(rel, func() (*symfile.File, error) { return s.fetch(rel, want) })
}

// cachePath is where the file at rel is kept in the cache; a path that
// would leave the cache directory is not found.
func (s *Supplier) cachePath(rel string) (string, error) {
	local := filepath.Join(s.cacheDir, filepath.FromSlash(rel))
	if !inCache(s.cacheDir, local) {
		return "", fmt.Errorf("%w: %s", symfile.ErrNotFound, rel)
	}
	return local, nil
}

// moduleMismatch says how symbol file f differs from the module asked
// for, or "" when it is that module's: its MODULE line's id and name are
// the module's debug id and debug file, or its code id and code file (a
// module known by its code names), as dump_syms writes them, or its INFO
// CODE_ID is the module's code id (a file found by code id, whose debug
// id the dump may not know). Ids and names compare without case, as
// Windows and symbol servers treat them.
func moduleMismatch(f *symfile.File, m symfile.ModuleKey) string {
	got := f.Module()
	names := func(id, file string) bool {
		return id != "" && strings.EqualFold(got.ID, id) && strings.EqualFold(got.Name, symfile.BaseName(file))
	}
	if names(m.DebugID, m.DebugFile) || names(m.CodeID, m.CodeFile) || m.CodeID != "" && strings.EqualFold(f.CodeID(), m.CodeID) {
		return ""
	}
	want := fmt.Sprintf("debug id %q, file %q", m.DebugID, symfile.BaseName(m.DebugFile))
	if m.DebugID == "" {
		want = fmt.Sprintf("code id %q, file %q", m.CodeID, symfile.BaseName(m.CodeFile))
	}
	return fmt.Sprintf("its MODULE line names id %q, file %q (%s %s); want %s", got.ID, got.Name, got.OS, got.Arch, want)
}

// inCache checks, after cleaning, that p stays under the cache directory.
func inCache(cacheDir, p string) bool {
	rel, err := filepath.Rel(cacheDir, p)
	return err == nil && filepath.IsLocal(rel)
}

// missNote says when server u's miss was recorded, for notFound's message.
func missNote(u *url.URL, at time.Time) string {
	return fmt.Sprintf("%s missed at %s", u, at.UTC().Format(time.RFC3339))
}

func (s *Supplier) fetch(rel string, want symfile.ModuleKey) (*symfile.File, error) {
	return s.fetchAs(symFormat, rel, want)
}

// fetchAs is fetch of a file in format fm.
func (s *Supplier) fetchAs(fm *format, rel string, want symfile.ModuleKey) (*symfile.File, error) {
	local, err := s.cachePath(rel)
	if err != nil {
		return nil, err
	}
	// A cached file is used when it parses cleanly. One that does not (a
	// cache written by an older version, a disk error) is fetched again;
	// it is kept, and used, only when no server gives a replacement.
	var cached *symfile.File
	var cachedErr error
	if fi, err := os.Stat(local); err == nil && fi.Mode().IsRegular() {
		if fm == symFormat {
			cached, cachedErr = openCorrupt(s.index, local)
		} else {
			cached, cachedErr = fm.open(local, local)
		}
		if cachedErr == nil && (fm != symFormat || moduleMismatch(cached, want) == "") {
			return cached, nil
		}
		if cachedErr == nil { // cached by a version that did not check
			cached.Close()
			cached = nil
		}
	}
	var failures []error
	var remembered []string
	for _, u := range s.urls {
		target := joinURL(u, rel)
		if at, ok := s.cachedMiss(target); ok {
			remembered = append(remembered, missNote(u, at))
			continue
		}
		f, err := s.downloadAs(fm, u, target, local, false, want)
		if err == nil || errors.As(err, new(*symfile.CorruptError)) {
			if cached != nil {
				cached.Close()
			}
			return f, err
		}
		if !errors.Is(err, symfile.ErrNotFound) {
			failures = append(failures, err)
		}
	}
	if cachedErr != nil {
		return cached, cachedErr
	}
	if len(failures) > 0 {
		return nil, errors.Join(failures...)
	}
	return nil, notFound(rel, remembered)
}

// notFound is the error for a file no server has, naming the misses that
// were remembered rather than asked.
func notFound(rel string, remembered []string) error {
	if len(remembered) == 0 {
		return fmt.Errorf("%w: %s", symfile.ErrNotFound, rel)
	}
	return fmt.Errorf("%w: %s (not asked: %s; negative cache, see --symbols-miss-ttl)", symfile.ErrNotFound, rel, strings.Join(remembered, ", "))
}

// joinURL is the URL of rel, a store-relative path, on the server base.
func joinURL(base *url.URL, rel string) string {
	u := *base
	u.Path = base.Path + "/" + rel
	return u.String()
}

// openCorrupt opens a symbol file (through index, when not nil), reporting
// any failure as a *symfile.CorruptError.
func openCorrupt(index *symfile.IndexDir, path string) (*symfile.File, error) {
	f, err := index.Open(path)
	var ce *symfile.CorruptError
	if err != nil && !errors.As(err, &ce) {
		err = &symfile.CorruptError{File: path, Err: err}
	}
	return f, err
}

// download fetches target from the server base into local and returns it
// parsed, retrying a transient failure (5xx, 429, a timeout or a reset
// connection) under the supplier's RetryPolicy. A definite miss (404, 410)
// is remembered in the negative cache. With noRedirect (a code-info
// lookup) a redirect is returned as a *redirectAnswer instead of followed.
//
// A server whose failures outlast the retries of one file is not asked
// again in this run (serverState): a server answering 503 to everything
// costs the retries once, not per module.
func (s *Supplier) download(base *url.URL, target, local string, noRedirect bool, want symfile.ModuleKey) (*symfile.File, error) {
	return s.downloadAs(symFormat, base, target, local, noRedirect, want)
}

// downloadAs is download of a file in format fm.
func (s *Supplier) downloadAs(fm *format, base *url.URL, target, local string, noRedirect bool, want symfile.ModuleKey) (*symfile.File, error) {
	var waited time.Duration
	for n := 1; ; n++ {
		a := s.attempt(fm, base, target, local, noRedirect, want)
		if a.miss {
			s.recordMiss(target)
		}
		if !a.retry {
			return a.file, s.settle(base, a, n)
		}
		d, ok := s.retry.delay(n-1, a.after)
		if n > s.retry.Retries || !ok || waited+d > s.retry.MaxWait || (!s.deadline.IsZero() && time.Now().Add(d).After(s.deadline)) {
			a.hostile = true
			return a.file, s.settle(base, a, n)
		}
		select { // the next attempt is not made if the server went down meanwhile
		case <-time.After(d):
		case <-s.servers[base].ctx.Done():
		}
		waited += d
	}
}

// attemptResult is the outcome of one request.
type attemptResult struct {
	file  *symfile.File
	err   error
	miss  bool          // a definite "not found"
	retry bool          // transient: worth asking again
	after time.Duration // the server's Retry-After, 0 when none
	// hostile: a failure that would cost as much for each module (no
	// answer at all, below the minimum rate, an answer streamed past the
	// download bound, failing past the retries): it puts the server
	// down. wasDown: the server was down already (not asked, or cut
	// short).
	hostile, wasDown bool
}

// settle turns the last attempt's outcome into the error download
// returns, putting the server down when it failed by itself.
func (s *Supplier) settle(base *url.URL, a attemptResult, attempts int) error {
	err := a.err
	if err == nil {
		return nil
	}
	var de *DownloadError
	if !errors.As(err, &de) {
		return err
	}
	if attempts > 1 {
		de.Err = fmt.Errorf("%w (%d attempts)", de.Err, attempts)
	}
	switch {
	case a.wasDown:
		de.ServerDown = true
	case a.hostile:
		de.ServerDown = true
		de.Err = fmt.Errorf("%w; %s not asked again in this run", de.Err, base.Redacted())
		s.servers[base].markDown(err)
	}
	return err
}

// attempt makes one request for target and, on 200, reads the body into a
// partial file, parses it and renames it into the cache. Only a file that
// parses without error is cached, so that nothing half-written or corrupt
// is ever cached; a corrupt file is still returned, with its
// *symfile.CorruptError, for this run.
func (s *Supplier) attempt(fm *format, base *url.URL, target, local string, noRedirect bool, want symfile.ModuleKey) (a attemptResult) {
	fail := func(status int, err error) error {
		return &DownloadError{URL: target, Server: base.String(), Status: status, Err: err}
	}
	deadline := time.Now().Add(s.timeout)
	if !s.deadline.IsZero() {
		if !time.Now().Before(s.deadline) {
			a.err = fail(0, fmt.Errorf("%w: not asked (%v in all)", ErrDownloadBudget, s.total))
			return a
		}
		deadline = minTime(deadline, s.deadline)
	}
	server := s.servers[base]
	notAsked := func() bool {
		if downErr := server.downErr(); downErr != nil {
			a.err, a.wasDown = fail(0, fmt.Errorf("%w: not asked after an earlier failure: %w", ErrServerDown, downErr)), true
			return true
		}
		return false
	}
	if notAsked() {
		return a
	}
	release := s.acquireJob()
	defer release()
	if notAsked() { // while this request waited for a slot
		return a
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	ctx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	defer context.AfterFunc(server.ctx, func() { abort(context.Cause(server.ctx)) })()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		a.err = fail(0, err)
		return a
	}
	var received atomic.Int64
	defer s.watchRate(&received, abort)()
	// failed classifies a network error: too slow, cut short because the
	// server went down, out of budget, or (when transient) worth a retry.
	failed := func(status int, err error, noResponse bool) attemptResult {
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, ErrTooSlow):
			return attemptResult{err: fail(status, cause), hostile: true}
		case errors.Is(cause, ErrServerDown):
			return attemptResult{err: fail(status, cause), wasDown: true}
		case s.budgetSpent(deadline):
			return attemptResult{err: fail(status, fmt.Errorf("%w: %w", ErrDownloadBudget, err))}
		}
		return attemptResult{err: fail(status, err), retry: transient(err), hostile: noResponse && !transient(err)}
	}
	client := s.client
	if noRedirect {
		client = s.lookupClient
	}
	resp, err := client.Do(req)
	if err != nil {
		var re *redirectError
		if errors.As(err, &re) {
			// A redirect out of http(s) is about one file; a server that
			// redirects past the bound would do it for every module.
			a.err, a.hostile = fail(0, err), re.loop
			return a
		}
		return failed(0, err, true)
	}
	defer resp.Body.Close()
	switch code := resp.StatusCode; {
	case code == http.StatusNotFound || code == http.StatusGone:
		a.err, a.miss = fmt.Errorf("%w: %s (HTTP %d)", symfile.ErrNotFound, target, code), true
		return a
	case noRedirect && isRedirect(code):
		a.err = &redirectAnswer{location: resp.Header.Get("Location"), req: resp.Request.URL}
		return a
	case code == http.StatusTooManyRequests || code >= 500:
		a.err, a.retry = fail(code, errors.New(http.StatusText(code))), true
		a.after = retryAfter(resp.Header.Get("Retry-After"), time.Now())
		return a
	case code != http.StatusOK:
		a.err = fail(code, errors.New(http.StatusText(code)))
		return a
	case resp.ContentLength > s.maxSize:
		a.err = fail(code, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, resp.ContentLength, s.maxSize))
		return a
	}

	done := s.reportProgress(target, local, resp.ContentLength, &received)
	defer done()
	// The body stops at the deadline even where the HTTP client would
	// still return what it has buffered: a gzip-encoded body inflates
	// megabytes from each buffered kilobyte.
	body := bufio.NewReaderSize(&countingReader{r: resp.Body, n: &received, ctx: ctx}, 64<<10)
	// A server that answers 200 with an HTML page must not poison the cache.
	head, perr := body.Peek(fm.headLen())
	if !fm.startsWell(head) {
		if perr != nil && perr != io.EOF { // cut off, not a short page
			return failed(resp.StatusCode, perr, false)
		}
		a.err = fail(resp.StatusCode, errors.New("response is not "+fm.what))
		return a
	}
	return s.store(fm, body, target, local, want, resp.StatusCode, fail, failed)
}

// store writes a download's body into a partial file and, once it is
// whole, parses cleanly and has the MODULE line of the module asked for,
// renames it into the cache at local. A corrupt file is returned, with its
// *CorruptError, for this run only; a file of another module is not used.
func (s *Supplier) store(fm *format, body io.Reader, target, local string, want symfile.ModuleKey, status int,
	fail func(int, error) error, failed func(int, error, bool) attemptResult) (a attemptResult) {
	tmp, err := s.createPartial()
	if err != nil {
		a.err = fail(0, fmt.Errorf("cache: %w", err))
		return a
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
		return failed(status, err, false)
	}
	if n > s.maxSize {
		// Streamed, not announced: it cost the whole bound, and would
		// again for each module.
		a.err = fail(status, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, s.maxSize))
		a.hostile = true
		return a
	}
	if err := tmp.Close(); err != nil {
		a.err = fail(0, fmt.Errorf("cache: %w", err))
		return a
	}
	f, err := fm.open(tmp.Name(), target) // in memory: the index is keyed to the cached path
	if f != nil && fm == symFormat {
		if diff := moduleMismatch(f, want); diff != "" {
			f.Close()
			a.err = fail(status, fmt.Errorf("%w: %s", ErrWrongModule, diff))
			return a
		}
	}
	if err != nil && f == nil && errors.Is(err, ErrWrongModule) { // a format's own check (macho.go)
		a.err = fail(status, err)
		return a
	}
	if err != nil {
		// Not cached: the next run asks again. The mapping outlives the
		// removal of the partial file.
		if f != nil {
			f.SetName(target)
		}
		if ce, ok := err.(*symfile.CorruptError); ok {
			ce.File = target
		}
		a.file, a.err = f, err
		return a
	}
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		f.Close()
		a.err = fail(0, fmt.Errorf("cache: %w", err))
		return a
	}
	removeOldDownloads(filepath.Dir(local))
	if err := os.Rename(tmp.Name(), local); err != nil {
		f.Close()
		a.err = fail(0, fmt.Errorf("cache: %w", err))
		return a
	}
	committed = true
	f.SetName(local)
	if s.index != nil && fm == symFormat {
		// The check above built the file's index in memory: it becomes the
		// cached file's index, so Open maps it instead of building it again
		// (keyed by content, as a cached file is looked up later). A failed
		// Adopt costs only that second build.
		_ = s.index.Adopt(f, local, "")
		f.Close()
		// Served through the index from now on, as a cached file is.
		a.file, a.err = openCorrupt(s.index, local)
		return a
	}
	a.file = f
	return a
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

// countingReader counts the bytes read from r in n, and fails every read
// once ctx is done.
type countingReader struct {
	r   io.Reader
	n   *atomic.Int64
	ctx context.Context
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// watchRate cancels a download, with ErrTooSlow as the cause, when fewer
// than minRate bytes per second arrive in a rate window. It returns the
// function that stops watching.
func (s *Supplier) watchRate(received *atomic.Int64, cancel context.CancelCauseFunc) func() {
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
func (s *Supplier) budgetSpent(deadline time.Time) bool {
	return !s.deadline.IsZero() && deadline.Equal(s.deadline) && !time.Now().Before(s.deadline)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// redirectError is a redirect that was not followed; loop: because there
// were more than maxRedirects.
type redirectError struct {
	msg  string
	loop bool
}

func (e *redirectError) Error() string { return e.msg }

// urlStrings lists the servers, for traces.
func (s *Supplier) urlStrings() []string {
	out := make([]string, len(s.urls))
	for i, u := range s.urls {
		out[i] = u.String()
	}
	return out
}
