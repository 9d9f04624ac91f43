package main

// The persistent symbol index (--index-dir, --no-index): symbol files are
// opened through symfile.IndexDir, so a later process maps each file's
// index instead of reading the whole file.

import (
	"io"
	"math"
	"os"
	"slices"
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
	// stopCatching stops the signal handler of catchSignals, once it runs
	// (catchSignalsOnce).
	stopCatching     func()
	catchSignalsOnce sync.Once
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
// return of the command passes here (runWithStdin, batch's command); a
// single-dump run ended by SIGINT or SIGTERM waits too (catchSignals), and
// an exit that skips it (SIGKILL, a second signal) leaves only a temporary
// file, which a later run removes.
func (f *indexFlags) wait() {
	if f.made == nil {
		return
	}
	f.made.wait()
	f.made.mu.Lock()
	stop := f.made.stopCatching
	f.made.stopCatching = nil
	f.made.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// waitOnSignal makes SIGINT and SIGTERM wait for the indexes being written
// before they end the process (catchSignals), from now until wait. Only
// the single-dump mode calls it: batch stops on those signals itself and
// then returns through wait.
func (f *indexFlags) waitOnSignal() {
	if f.made == nil {
		return
	}
	f.made.catchSignalsOnce.Do(func() {
		stop := f.made.catchSignals()
		f.made.mu.Lock()
		f.made.stopCatching = stop
		f.made.mu.Unlock()
	})
}

// wait waits for the writes of every index directory made so far; a
// signal's wait (catchSignals) and the command's may run at once, and
// each returns only when the writes are done.
func (m *indexDirs) wait() {
	m.mu.Lock()
	dirs := slices.Clone(m.dirs)
	m.mu.Unlock()
	for _, d := range dirs {
		d.Wait()
	}
}

// waitThenRaise is catchSignals' goroutine: on a signal from ch it
// restores the signal's default action (reset: a second one ends the
// process at once), waits (for the index writes) and raises the signal
// again. done ends it, after ch has been stopped: a signal delivered
// before that is still raised, so that a run ended by a signal never
// exits 0.
func waitThenRaise(ch <-chan os.Signal, done <-chan struct{}, reset func(os.Signal), wait func(), raise func(os.Signal)) {
	var sig os.Signal
	select {
	case sig = <-ch:
	case <-done:
		select {
		case sig = <-ch:
		default:
			return
		}
	}
	reset(sig)
	wait()
	raise(sig)
}
