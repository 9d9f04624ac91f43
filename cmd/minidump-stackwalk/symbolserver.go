package main

// Symbols from HTTP symbol servers (rust-minidump's --symbols-url), cached
// on disk, tried after the local symbol paths.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
	"github.com/minidump-stackwalk/minidump-stackwalk/machosupplier"
	"github.com/minidump-stackwalk/minidump-stackwalk/pdbsupplier"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/symsrv"
)

// symbolServerFlags are --symbols-url, --symbols-cache,
// --symbol-download-timeout, --symbols-total-timeout, --symbols-miss-ttl,
// --symbols-retries and --symbols-download-jobs.
type symbolServerFlags struct {
	// downloads is the run's one download client, made on first use
	// (options.downloads); allocated by addFlags.
	downloads *sharedDownloads
	urls      []string
	cache     string
	timeout   time.Duration
	total     time.Duration
	missTTL   time.Duration
	retries   int
	jobs      int
}

// Bounds of the flags that size the downloads.
const (
	maxDownloadJobs = 64
	maxRetries      = 10
)

// httpOptions are the supplier options the flags select.
func (f *symbolServerFlags) httpOptions() []symsrv.Option {
	retry := symsrv.DefaultRetry
	retry.Retries = f.retries
	return []symsrv.Option{symsrv.WithTimeout(f.timeout), symsrv.WithMissTTL(f.missTTL),
		symsrv.WithRetry(retry), symsrv.WithDownloadJobs(f.jobs),
		symsrv.WithPDBs(pdbsupplier.FileSymbols),                           // Microsoft-protocol servers (mssymsrv.go)
		symsrv.WithMachO(machosupplier.CheckFile, machosupplier.FromFiles)} // macOS modules' Mach-O files
}

// sharedDownloads holds the run's download client.
type sharedDownloads struct {
	once sync.Once
	c    *fetch.Client
}

// downloads returns the run's download client: symbol servers and
// debuginfod download through it, so that the flags' bounds
// (--symbol-download-timeout, --symbols-total-timeout, --symbols-retries,
// --symbols-download-jobs, --symbols-max-decompressed-file) and the
// servers found down are the run's, whichever client asks. progress
// receives the downloads' progress when the first call makes it.
func (o *options) downloads(progress func(symsrv.DownloadProgress)) *fetch.Client {
	f := &o.symbolServer
	newClient := func() *fetch.Client {
		cfg := fetch.DefaultConfig()
		cfg.Timeout, cfg.Total, cfg.Jobs = f.timeout, f.total, f.jobs
		cfg.Retry.Retries = f.retries
		cfg.MaxSize = int64(o.limits.decompressedFile) // limits.go
		cfg.Progress = progress
		return fetch.New(cfg)
	}
	if f.downloads == nil {
		return newClient()
	}
	f.downloads.once.Do(func() { f.downloads.c = newClient() })
	return f.downloads.c
}

// defaultSymbolCache is os.UserCacheDir()/minidump-stackwalk/symbols, or ""
// when the user has no cache directory.
func defaultSymbolCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "minidump-stackwalk", "symbols")
}

func (f *symbolServerFlags) addFlags(fs *pflag.FlagSet) {
	f.downloads = &sharedDownloads{}
	addStringList(fs, &f.urls, "symbols-url",
		"a symbol server `URL` (repeatable), asked after the local symbol paths for\n"+
			"URL/<debug file>/<debug id>/<debug file without .pdb>.sym, then for a Windows module's\n"+
			"PDB as Microsoft's servers serve it (<name>.pdb/<id>/<name>.pdb or .pd_), then for a macOS\n"+
			"module's dSYM and binary in symbolicator's layout (xx/yyyy.../debuginfo, executable); srv*cache*URL\n"+
			"is accepted; a positional symbol path starting with http:// or https:// is a symbol server too")
	fs.StringVar(&f.cache, "symbols-cache", defaultSymbolCache(), "`DIR` where files downloaded from symbol servers are kept, in the same layout")
	fs.DurationVar(&f.timeout, "symbol-download-timeout", symsrv.DefaultDownloadTimeout, "bound on each symbol download, for example 30s or 2m")
	fs.DurationVar(&f.total, "symbols-total-timeout", symsrv.DefaultTotalTimeout, "bound on all symbol downloads together (then modules are walked without\n"+
		"their symbols, with a warning), for example 10m; 0: no bound")
	fs.DurationVar(&f.missTTL, "symbols-miss-ttl", symsrv.DefaultMissTTL,
		"how long a server's \"not found\" (HTTP 404, 410) is remembered in --symbols-cache, so\n"+
			"later runs do not ask again; 0: not remembered")
	fs.IntVar(&f.retries, "symbols-retries", symsrv.DefaultRetry.Retries,
		"retries of a download that failed for a passing reason (HTTP 5xx, 429, a timeout, a reset\n"+
			"connection), with exponential backoff; never for a 404")
	fs.IntVar(&f.jobs, "symbols-download-jobs", symsrv.DefaultDownloadJobs,
		"symbol files downloaded at once: a dump's modules are fetched ahead of its walk (in\n"+
			"batch, each worker downloads one file at a time and --jobs bounds them)")
}

// isSymbolURL reports whether a symbol path names a symbol server.
func isSymbolURL(p string) bool {
	l := strings.ToLower(p)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// check validates the flags and adds the --symbols-url servers to
// o.symbolPaths (which then hold local paths and URLs, as given).
func (f *symbolServerFlags) check(o *options) error {
	msSymbolPaths(f.urls, o.symbolPaths) // srv*cache*url (mssymsrv.go)
	for _, u := range f.urls {
		if !isSymbolURL(u) {
			return fmt.Errorf("--symbols-url %q: want an http:// or https:// URL", u)
		}
	}
	o.symbolPaths = append(o.symbolPaths, f.urls...)
	if f.timeout <= 0 {
		return fmt.Errorf("--symbol-download-timeout %v: want a positive duration", f.timeout)
	}
	if f.total < 0 {
		return fmt.Errorf("--symbols-total-timeout %v: want a positive duration, or 0 for no bound", f.total)
	}
	if f.missTTL < 0 {
		return fmt.Errorf("--symbols-miss-ttl %v: want a positive duration, or 0 to not remember misses", f.missTTL)
	}
	if f.retries < 0 || f.retries > maxRetries {
		return fmt.Errorf("--symbols-retries %d: want 0 to %d", f.retries, maxRetries)
	}
	if f.jobs < 1 || f.jobs > maxDownloadJobs {
		return fmt.Errorf("--symbols-download-jobs %d: want 1 to %d", f.jobs, maxDownloadJobs)
	}
	_, urls := splitSymbolPaths(o.symbolPaths)
	if len(urls) == 0 {
		return nil
	}
	if f.cache == "" {
		return errors.New("symbol servers need a cache directory: give --symbols-cache DIR")
	}
	if _, err := symsrv.NewSupplier(urls, f.cache); err != nil {
		return err
	}
	if _, err := fetch.FindHelper(); err != nil { // the downloads' program (internal/fetch)
		return fmt.Errorf("symbol server %s: %w", urls[0], err)
	}
	return nil
}

// splitSymbolPaths separates local symbol paths from symbol server URLs.
func splitSymbolPaths(paths []string) (local, urls []string) {
	for _, p := range paths {
		if isSymbolURL(p) {
			urls = append(urls, p)
		} else {
			local = append(local, p)
		}
	}
	return local, urls
}

// symbolSupplierWith returns the supplier over o's symbol paths: the local
// ones first, then the symbol servers, whose downloads are reported to
// progress (nil: not reported). Download failures other than "not found"
// are printed on stderr as warnings (the module is then walked without
// symbols). It is nil when there are no symbol paths.
func (o *options) symbolSupplierWith(stderr io.Writer, progress func(symsrv.DownloadProgress)) symfile.Supplier {
	local, urls := splitSymbolPaths(o.symbolPaths)
	var chain symfile.ChainSupplier
	index := o.index.indexDir(stderr)
	if index != nil {
		// A Ctrl-C lets the index writes finish (index.go); signals are
		// caught only once a write starts: catching them costs every run
		// start-up work (a goroutine, the runtime's signal loop).
		index.WithDecompressBudget(o.limits.decompressBudget()).WithWriteStart(o.index.waitOnSignal)
	}
	if len(local) > 0 {
		dir := symfile.NewIndexedDirSupplier(index, local...).WithDecompressBudget(o.limits.decompressBudget())
		if o.lookups != nil {
			dir.WithTrace(o.lookups.add)
		}
		chain = append(chain, dir)
	}
	if len(urls) > 0 {
		opts := append(o.symbolServer.httpOptions(), symsrv.WithDownloader(o.downloads(progress)),
			symsrv.WithIndex(index), symsrv.WithTrace(o.lookups.traceFunc()))
		hs, err := symsrv.NewSupplier(urls, o.symbolServer.cache, opts...)
		if err != nil { // check() has accepted these; say so should it happen anyway
			logf(stderr, "minidump-stackwalk: warning: symbol servers not used: %v\n", err)
		} else {
			chain = append(chain, hs)
		}
	}
	elf, err := o.debuginfo.supplier(o) // modules' own ELF files (debuginfo.go)
	if err != nil {                     // check() has accepted the flags; say so should it happen anyway
		logf(stderr, "minidump-stackwalk: warning: ELF files not used: %v\n", err)
	} else if elf != nil {
		chain = append(chain, elf)
	}
	if len(chain) == 0 {
		return nil
	}
	var sup symfile.Supplier = chain
	if len(chain) == 1 {
		sup = chain[0]
	}
	if len(urls) > 0 || elf != nil {
		sup = &warningSupplier{sup: sup, w: stderr, warned: map[symfile.ModuleKey]bool{}}
	}
	return sup
}

// Prefetch passes a prefetch on to the supplier it wraps (symfile's
// ChainSupplier or symsrv's Supplier); its answers, warnings included, come
// when the walk asks.
func (s *warningSupplier) Prefetch(mods []symfile.ModuleKey) {
	if p, ok := s.sup.(prefetcher); ok {
		p.Prefetch(mods)
	}
}

// warningSupplier prints, once per module, the errors of a supplier that
// are neither "not found" nor a corrupt file: failed downloads.
type warningSupplier struct {
	sup symfile.Supplier
	w   io.Writer

	mu     sync.Mutex // guards warned, down and serializes writes to w
	warned map[symfile.ModuleKey]bool
	// down records the servers already named in a warning as not asked
	// again: with downloads in parallel several modules can see the
	// failure that put a server down, and it is told once.
	down map[string]bool
}

// Symbols implements symfile.Supplier.
func (s *warningSupplier) Symbols(m symfile.ModuleKey) (*symfile.File, error) {
	f, err := s.sup.Symbols(m)
	if err != nil && !errors.Is(err, symfile.ErrNotFound) && !errors.As(err, new(*symfile.CorruptError)) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.warned[m] {
			return f, err
		}
		s.warned[m] = true
		for _, e := range joined(err) {
			// A server found unreachable or too slow is named once.
			var de *symsrv.DownloadError
			if errors.As(e, &de) && de.ServerDown {
				if s.down[de.Server] {
					continue
				}
				if s.down == nil {
					s.down = map[string]bool{}
				}
				s.down[de.Server] = true
			}
			for _, line := range strings.Split(e.Error(), "\n") {
				fmt.Fprintf(s.w, "minidump-stackwalk: warning: symbols of %s: %s\n", moduleName(m), line)
			}
		}
	}
	return f, err
}

// joined returns the errors an errors.Join holds, nested joins flattened,
// or err itself.
func joined(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, joined(e)...)
	}
	return out
}

func moduleName(m symfile.ModuleKey) string {
	if m.DebugFile != "" {
		return m.DebugFile + " " + m.DebugID
	}
	return m.CodeFile + " " + m.CodeID
}
