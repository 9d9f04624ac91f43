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

	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/debuginfod"
	"github.com/minidump-stackwalk/minidump-stackwalk/elfsupplier"
	"github.com/minidump-stackwalk/minidump-stackwalk/elfsym"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// debuginfoFlags are --use-local-debuginfo, --debuginfo-path and
// --debuginfod-url.
type debuginfoFlags struct {
	useLocal bool
	roots    []string
	urls     []string
}

func (f *debuginfoFlags) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&f.useLocal, "use-local-debuginfo", false,
		"for modules without a .sym, read symbols and unwind tables from their ELF files: the path\n"+
			"the dump names, /usr/lib/debug and --debuginfo-path, used only when the build id matches")
	fs.StringArrayVar(&f.roots, "debuginfo-path", nil,
		"a `DIR` of ELF and debug files, by file name or .build-id/xx/rest.debug (repeatable; implies\n"+
			"--use-local-debuginfo)")
	fs.StringArrayVar(&f.urls, "debuginfod-url", nil,
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
	return nil
}

// supplier returns the ELF-file supplier, or nil when it is off. Its
// downloads keep to the symbol server's per-download bound.
func (f *debuginfoFlags) supplier(o *options) (symfile.Supplier, error) {
	if !f.on() {
		return nil, nil
	}
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
		l.Debuginfod = &debuginfod.Client{URLs: urls, CacheDir: filepath.Join(cache, "minidump-stackwalk", "debuginfod"),
			Timeout: o.symbolServer.timeout}
	}
	return elfsupplier.New(context.Background(), l), nil
}
