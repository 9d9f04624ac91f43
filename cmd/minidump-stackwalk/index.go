package main

// The persistent symbol index (--index-dir, --no-index): symbol files are
// opened through symfile.IndexDir, so a later process maps each file's
// index instead of reading the whole file.

import (
	"io"
	"math"

	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// indexFlags are --index-dir and --no-index.
type indexFlags struct {
	dir string
	off bool
}

func (f *indexFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.dir, "index-dir", symfile.DefaultIndexDir(),
		"`DIR` where the index of each symbol file is kept, built on first use and mapped\n"+
			"afterwards (stale or damaged indexes are rebuilt; when DIR cannot be written,\n"+
			"symbols are indexed in memory, with a warning)")
	fs.BoolVar(&f.off, "no-index", false, "index symbol files in memory only, neither reading nor writing --index-dir")
}

// indexDir returns the index directory to open symbol files through, or nil
// for none. Its warnings go to stderr.
func (f *indexFlags) indexDir(stderr io.Writer) *symfile.IndexDir {
	if f.off || f.dir == "" {
		return nil
	}
	// The index's own budget (the default bound per file, none in all)
	// reads compressed files into it: its copies outlive the run.
	return symfile.NewIndexDir(f.dir, func(err error) {
		logf(stderr, "minidump-stackwalk: warning: %v\n", err)
	}).WithDecompressBudget(symcompress.NewBudget(0, math.MaxInt64))
}
