package main

// Symbols and unwind tables from the modules' own ELF files (issue 18):
// rust-minidump's --use-local-debuginfo, --debuginfo-path roots and
// debuginfod servers. The supplier (package elfsupplier) is asked after the
// .sym stores and symbol servers, for the modules they have nothing for.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/debuginfod"
	"github.com/minidump-stackwalk/minidump-stackwalk/elfsupplier"
	"github.com/minidump-stackwalk/minidump-stackwalk/elfsym"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
	"github.com/minidump-stackwalk/minidump-stackwalk/pdbsupplier"
	"github.com/minidump-stackwalk/minidump-stackwalk/pesupplier"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// debuginfoFlags are --use-local-debuginfo, --debuginfo-path and
// --debuginfod-url.
type debuginfoFlags struct {
	useLocal bool
	roots    []string
	urls     []string
	// built is the one supplier of the run, made on first use: the
	// symbol chain and the walkers' native evidence (processor.Options.Native)
	// share its files. Allocated by addFlags.
	built *builtSupplier
}

type builtSupplier struct {
	once sync.Once
	sup  *elfsupplier.Supplier
	pe   *pesupplier.Supplier // PE images (pedebuginfo.go)
	err  error
}

func (f *debuginfoFlags) addFlags(fs *pflag.FlagSet) {
	f.built = &builtSupplier{}
	fs.BoolVar(&f.useLocal, "use-local-debuginfo", false,
		"for modules without a .sym, read symbols and unwind tables from their own files, used only\n"+
			"when the id matches: ELF files (the path the dump names, /usr/lib/debug, --debuginfo-path),\n"+
			"Mach-O files and dSYM bundles (the path the dump names, --debuginfo-path by name or UUID),\n"+
			"Windows PDBs (--debuginfo-path: flat, symbol stores, .pd_ cabinets) and PE images\n"+
			"(.exe/.dll: unwind tables, exports; the path the dump names, --debuginfo-path by name or\n"+
			"name/CODEID/name)")
	addStringList(fs, &f.roots, "debuginfo-path",
		"a `DIR` of debug files (repeatable; implies --use-local-debuginfo): ELF files by name or\n"+
			".build-id/xx/rest.debug, Mach-O files and NAME.dSYM bundles by name or UUID layout, PDBs and\n"+
			"PE images by name or in a Microsoft symbol store")
	addStringList(fs, &f.urls, "debuginfod-url",
		"a debuginfod server `URL` (repeatable; implies --use-local-debuginfo); with\n"+
			"--use-local-debuginfo and no such flag, $DEBUGINFOD_URLS as elfutils reads it")
}

// on reports whether ELF files are a symbol source.
func (f *debuginfoFlags) on() bool { return f.useLocal || len(f.roots) > 0 || len(f.urls) > 0 }

// check rejects a --debuginfo-path that is no directory.
func (f *debuginfoFlags) check() error {
	for _, r := range f.roots {
		if st, err := os.Stat(r); err != nil || !st.IsDir() {
			return fmt.Errorf("--debuginfo-path %s: not a directory", r)
		}
	}
	if len(f.urls) > 0 { // $DEBUGINFOD_URLS alone: its requests fail, naming the helper
		if _, err := fetch.FindHelper(); err != nil {
			return fmt.Errorf("--debuginfod-url %s: %w", f.urls[0], err)
		}
	}
	return nil
}

// supplier returns the ELF-file supplier followed by the PDB supplier
// (Windows modules' PDBs under --debuginfo-path: flat, symbol stores,
// .pd_ files; package pdbsupplier), or nil when they are off. Its
// downloads keep to the symbol server's per-download bound.
func (f *debuginfoFlags) supplier(o *options) (symfile.Supplier, error) {
	s, err := f.elfSupplier(o)
	if s == nil || err != nil {
		return nil, err
	}
	if o.walkCtx != nil { // a batch dump: its --timeout cancels its downloads
		s = s.WithContext(o.walkCtx)
	}
	p := pdbsupplier.New(f.roots...)
	p.UseModulePath = true
	// PE images last: their exports name fewer functions than a PDB.
	return symfile.ChainSupplier{f.withMachO(s), p, f.peSupplier()}, nil // debuginfo_macho.go, pedebuginfo.go
}

// native returns the supplier as the walkers' evidence from the modules'
// own files (unwind tables and code where a .sym has no CFI, prologues),
// or nil when it is off.
func (f *debuginfoFlags) native(o *options) processor.NativeSupplier {
	s, err := f.elfSupplier(o)
	if s == nil || err != nil {
		return nil
	}
	if o.walkCtx != nil { // a batch dump: its --timeout cancels its downloads
		s = s.WithContext(o.walkCtx)
	}
	return localFiles{s, f.peSupplier()} // pedebuginfo.go
}

// elfSupplier makes the run's supplier once.
func (f *debuginfoFlags) elfSupplier(o *options) (*elfsupplier.Supplier, error) {
	if !f.on() {
		return nil, nil
	}
	if f.built == nil {
		return f.newSupplier(o)
	}
	f.built.once.Do(func() {
		f.built.sup, f.built.err = f.newSupplier(o)
		f.built.pe = pesupplier.New(f.roots, true)
	})
	return f.built.sup, f.built.err
}

func (f *debuginfoFlags) newSupplier(o *options) (*elfsupplier.Supplier, error) {
	l := &elfsym.Locator{Roots: f.roots, DebugDir: elfsym.DefaultDebugDir, UseModulePath: true}
	urls := f.urls
	if len(urls) == 0 {
		urls = debuginfod.ParseURLs(os.Getenv("DEBUGINFOD_URLS"))
	}
	if len(urls) > 0 {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("debuginfod needs a cache directory: %w", err)
		}
		// The symbol servers' bounds and --symbols-total-timeout: one
		// budget for all downloads of the run.
		l.Debuginfod = &debuginfod.Client{URLs: urls, CacheDir: filepath.Join(cache, "minidump-stackwalk", "debuginfod"),
			Downloads: o.downloads(nil)}
	}
	return elfsupplier.New(context.Background(), l), nil
}
