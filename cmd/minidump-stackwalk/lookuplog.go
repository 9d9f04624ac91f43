package main

// --verbose=debug names every symbol file path and URL tried for each
// module and what came of it. The suppliers report each try while the dump
// is walked (symfile's WithTrace hooks); the log is written with the rest
// of the --verbose output.

import (
	"context"
	"log/slog"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// lookupLog collects the symbol file tries of a run. The walks of several
// threads look symbols up at once.
type lookupLog struct {
	mu    sync.Mutex
	tries []symbolTry
}

type symbolTry struct {
	module symfile.ModuleKey
	where  string // a path, or a store-relative path with its cache and servers
	err    error  // nil: used
}

// maxLoggedTries bounds the log of a hostile dump with very many modules.
const maxLoggedTries = 1 << 16

func (l *lookupLog) add(m symfile.ModuleKey, where string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.tries) < maxLoggedTries {
		l.tries = append(l.tries, symbolTry{m, where, err})
	}
}

// logTo writes the tries at debug level.
func (l *lookupLog) logTo(log *slog.Logger) {
	if l == nil || !log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, t := range l.tries {
		outcome := "used"
		if t.err != nil {
			outcome = t.err.Error()
		}
		log.Debug("symbols", "module", moduleName(t.module), "tried", t.where, "outcome", outcome)
	}
	if len(l.tries) == maxLoggedTries {
		log.Debug("symbols", "note", "later tries not logged")
	}
}

// traceFunc is l.add, or nil when l is nil (no log collected).
func (l *lookupLog) traceFunc() func(symfile.ModuleKey, string, error) {
	if l == nil {
		return nil
	}
	return l.add
}
