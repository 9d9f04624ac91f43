package main

// The persistent symbol index (--index-dir, --no-index): symbol files are
// opened through symfile.IndexDir, so a later process maps each file's
// index instead of reading the whole file.

import (
	"io"
	"math"
	"sync"

	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// indexFlags are --index-dir and --no-index.
type indexFlags struct {
	dir string
	off bool

	// made holds the index directories indexDir returned, to the options'
	// copies too: the indexes they write while the walks go on are waited
	// for before the process exits (wait).
	made *indexDirs
}

type indexDirs struct {
	mu   sync.Mutex
	dirs []*symfile.IndexDir
}

func (f *indexFlags) addFlags(fs *pflag.FlagSet) {
	f.made = &indexDirs{}
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
	d := symfile.NewIndexDir(f.dir, func(err error) {
		logf(stderr, "minidump-stackwalk: warning: %v\n", err)
	}).WithDecompressBudget(symcompress.NewBudget(0, math.MaxInt64))
	if f.made != nil {
		f.made.mu.Lock()
		f.made.dirs = append(f.made.dirs, d)
		f.made.mu.Unlock()
	}
	return d
}

// wait waits for the indexes still being written (a symbol file's index
// is written while the walk goes on) and warns of any that failed. Every
// exit of the command passes here (runWithStdin), so that the next run
// finds each index whole; an exit that skips it (a signal's default
// action) leaves only a temporary file, which a later run removes.
func (f *indexFlags) wait() {
	if f.made == nil {
		return
	}
	f.made.mu.Lock()
	made := f.made.dirs
	f.made.dirs = nil
	f.made.mu.Unlock()
	for _, d := range made {
		d.Wait()
	}
}
