package symsrv

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/oncemap"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// Defaults of a Supplier (docs/limits.md), those of every download
// (package fetch), suited to a CI step: a server that stalls or trickles
// costs one rate window, not minutes per module.
const (
	// DefaultDownloadTimeout bounds one request, body included.
	DefaultDownloadTimeout = fetch.DefaultTimeout
	// DefaultTotalTimeout bounds all the downloads of a supplier.
	DefaultTotalTimeout = fetch.DefaultTotal
	// DefaultMinRate and DefaultRateWindow: a download that receives less
	// than DefaultMinRate bytes per second over a window (waiting for the
	// response headers included) is abandoned, and its server is not
	// asked again.
	DefaultMinRate    = fetch.DefaultMinRate
	DefaultRateWindow = fetch.DefaultRateWindow
	// DefaultMaxDownload bounds the size of one downloaded symbol file,
	// after its Content-Encoding is decoded.
	DefaultMaxDownload = fetch.DefaultMaxSize
	// DefaultMissTTL is how long a server's "not found" (HTTP 404 or 410)
	// is remembered in the cache directory, so that later runs do not ask
	// again.
	DefaultMissTTL = fetch.DefaultMissTTL
	// DefaultDownloadJobs is how many requests a Supplier makes at once.
	DefaultDownloadJobs = fetch.DefaultJobs
)

// moduleTag starts every Breakpad symbol file.
var moduleTag = []byte("MODULE ")

// ErrWrongModule reports a downloaded symbol file whose MODULE line names
// another module than the one asked for: it is neither used nor cached.
var ErrWrongModule = errors.New("symbol file of another module")

// The failures of a download (package fetch's): a file larger than the
// download bound; a request not made, or cut short, because an earlier
// request to the same server found it unusable for the rest of the run
// (no response, too slow, an answer streamed past the download bound, or
// failures that outlasted the retries); a server below the minimum rate
// (fetch.Config's MinRate), not asked again; the total download time
// (fetch.Config's Total) spent.
var (
	ErrTooLarge       = fetch.ErrTooLarge
	ErrServerDown     = fetch.ErrServerDown
	ErrTooSlow        = fetch.ErrTooSlow
	ErrDownloadBudget = fetch.ErrDownloadBudget
)

// DownloadError reports a failed symbol download other than "not found": a
// network error, a timeout, an unexpected HTTP status, a file over the size
// bound or one that is not a symbol file. The walker treats the module as
// having no symbols; a caller may print the error as a warning. Its
// ServerDown is set when the server is not asked again after this failure,
// or was not asked because of such a failure earlier: a caller may warn
// once per server.
type DownloadError = fetch.Error

// RetryPolicy bounds the retries of a transient download failure
// (fetch.RetryPolicy).
type RetryPolicy = fetch.RetryPolicy

// DefaultRetry is the RetryPolicy of a Supplier: three retries after
// about 0.5 s, 1 s and 2 s, a Retry-After of up to 10 s honoured, at most
// 30 s of waiting per file (the total download bound still applies).
var DefaultRetry = fetch.DefaultRetry

// DownloadProgress describes a download in progress, for a progress
// display (fetch.Config's Progress).
type DownloadProgress = fetch.Progress

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
	return func(s *Supplier) { s.cfg.Timeout = d }
}

// WithIndex makes the supplier open the files of its cache through an
// index directory (symfile.IndexDir.Open).
func WithIndex(index *symfile.IndexDir) Option {
	return func(s *Supplier) { s.index = index }
}

// WithRetry sets the retry policy (DefaultRetry otherwise).
func WithRetry(p RetryPolicy) Option {
	return func(s *Supplier) { s.cfg.Retry = p }
}

// WithMissTTL sets how long a definite miss (HTTP 404 or 410) of a server
// is remembered in the cache directory: within that time, later suppliers
// over the same cache do not ask that server for that file again. 0 turns
// the negative cache off (misses are neither read nor written).
func WithMissTTL(d time.Duration) Option {
	return func(s *Supplier) { s.missTTL = d }
}

// WithContext makes ctx cancel the supplier's requests (a batch dump's
// --timeout); a request so cancelled says nothing against its server.
func WithContext(ctx context.Context) Option {
	return func(s *Supplier) { s.ctx = ctx }
}

// WithDownloader makes the supplier download through c, whose bounds,
// request slots and server states it then shares with c's other users
// (the run's other suppliers, debuginfod); the supplier's own bound
// options (WithTimeout, WithRetry, WithDownloadJobs) are then not used:
// c's fetch.Config bounds the total time, the rate, the size and the
// transport, and reports the progress.
func WithDownloader(c *fetch.Client) Option {
	return func(s *Supplier) { s.dl = c }
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
// remembered in the cache directory (WithMissTTL, package fetch); a
// transient failure is retried (WithRetry); a module whose
// debug and code paths miss is looked up by code file and id as Mozilla's
// Tecken serves it (httpcode.go).
type Supplier struct {
	urls     []*url.URL
	cacheDir string
	cfg      fetch.Config                                       // the bounds of the supplier's downloads
	missTTL  time.Duration                                      // WithMissTTL; 0: no negative cache
	ctx      context.Context                                    // WithContext
	dl       *fetch.Client                                      // WithDownloader, else made of cfg
	store    *fetch.Store                                       // the cache directory's partial files and misses
	index    *symfile.IndexDir                                  // WithIndex
	trace    func(m symfile.ModuleKey, where string, err error) // WithTrace

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
}

// NewSupplier returns a symfile.Supplier over the symbol servers at urls, tried
// in order, caching downloads under cacheDir. Each URL must be absolute with
// the scheme http or https; cacheDir must not be empty (it is created when
// the first file is downloaded).
func NewSupplier(urls []string, cacheDir string, opts ...Option) (*Supplier, error) {
	if cacheDir == "" {
		return nil, errors.New("symsrv: symbol server needs a cache directory")
	}
	s := &Supplier{cacheDir: cacheDir, cfg: fetch.DefaultConfig(), missTTL: DefaultMissTTL}
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
	}
	for _, o := range opts {
		o(s)
	}
	if s.dl == nil {
		s.dl = fetch.New(s.cfg)
	}
	s.store = fetch.NewStore(cacheDir, s.missTTL)
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
	return s.files.Get(rel, func() (*symfile.File, error) { return s.fetchAs(symFormat, rel, want) })
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

// fetchAs returns the file of format fm at rel: from the cache when it is
// sound there, else downloaded from the first server that has it.
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
		if at, ok := s.store.Miss(target); ok {
			remembered = append(remembered, missNote(u, at))
			continue
		}
		f, err := s.download(fm, u, target, local, false, want)
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

// download fetches target, a file of format fm, from the server base into
// local (package fetch: its bounds, retries, negative cache and server
// state) and returns it parsed. Only a file that parses without error and
// is the module asked for (its MODULE line; a format's own check) enters
// the cache, so that nothing half-written, corrupt or of another module
// is ever cached; a corrupt file is still returned, with its
// *symfile.CorruptError, for this run. With noRedirect (a code-info
// lookup) a redirect is returned as a *fetch.Redirect instead of followed.
func (s *Supplier) download(fm *format, base *url.URL, target, local string, noRedirect bool, want symfile.ModuleKey) (*symfile.File, error) {
	var f *symfile.File
	var checkErr error
	check := func(path string) error {
		f, checkErr = fm.open(path, target) // in memory: the index is keyed to the cached path
		if f != nil && fm == symFormat {
			if diff := moduleMismatch(f, want); diff != "" {
				f.Close()
				f, checkErr = nil, fmt.Errorf("%w: %s", ErrWrongModule, diff)
			}
		}
		return checkErr
	}
	err := s.dl.Get(fetch.Request{Ctx: s.ctx, Server: base.String(), URL: target, Store: s.store, Local: local,
		NoRedirect: noRedirect, What: fm.what, Heads: fm.heads, Check: check})
	var de *DownloadError
	switch {
	case err == nil:
	case checkErr != nil && !errors.Is(checkErr, ErrWrongModule):
		// Not cached: the next run asks again. The mapping outlives the
		// removal of the partial file.
		if f != nil {
			f.SetName(target)
		}
		if ce, ok := checkErr.(*symfile.CorruptError); ok {
			ce.File = target
		}
		return f, checkErr
	case errors.Is(err, fetch.ErrNotFound) && errors.As(err, &de):
		return nil, fmt.Errorf("%w: %s (HTTP %d)", symfile.ErrNotFound, target, de.Status)
	default:
		if f != nil { // checked, then not stored
			f.Close()
		}
		return nil, err
	}
	f.SetName(local)
	if s.index != nil && fm == symFormat {
		// The check above built the file's index in memory: it becomes the
		// cached file's index, so Open maps it instead of building it again
		// (keyed by content, as a cached file is looked up later). A failed
		// Adopt costs only that second build.
		_ = s.index.Adopt(f, local, "")
		f.Close()
		// Served through the index from now on, as a cached file is.
		return openCorrupt(s.index, local)
	}
	return f, nil
}

// urlStrings lists the servers, for traces.
func (s *Supplier) urlStrings() []string {
	out := make([]string, len(s.urls))
	for i, u := range s.urls {
		out[i] = u.String()
	}
	return out
}
