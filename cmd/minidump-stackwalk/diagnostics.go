package main

// Command-line mistakes the flags alone do not show: a second dump where a
// symbol path is expected, a symbol path that does not exist, flags that
// contradict each other.

import (
	"errors"
	"fmt"
	"io"
	"os"

	dumpinput "github.com/minidump-stackwalk/minidump-stackwalk/internal/input"
)

// checkConflicts rejects flag combinations that ask for two things at once.
func (o *options) checkConflicts() error {
	if o.crashedOnly && o.extraThread >= 0 {
		return fmt.Errorf("-c (only the crashed thread) and -t %d (the crashed thread and thread %d) contradict each other", o.extraThread, o.extraThread)
	}
	return nil
}

// checkSymbolPaths makes a dump given as a symbol path a usage error
// (users type `minidump-stackwalk a.dmp b.dmp` meaning both dumps) and
// warns on stderr about local symbol paths that do not exist, which would
// otherwise be skipped without a word.
func (o *options) checkSymbolPaths(stderr io.Writer) error {
	for _, p := range o.symbolPaths {
		if isSymbolURL(p) {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				logf(stderr, "minidump-stackwalk: warning: symbol path %s does not exist\n", p)
			} else {
				logf(stderr, "minidump-stackwalk: warning: symbol path %s: %v\n", p, err)
			}
			continue
		}
		if !st.Mode().IsRegular() {
			continue // a symbol store directory
		}
		if kind, _, err := dumpinput.SniffFile(p); err == nil && kind.Processable() {
			return fmt.Errorf("%s is %s, not a symbol path: one dump is walked at a time; "+
				"to walk several, run `minidump-stackwalk batch %s %s ...`", p, kind, o.dumpPath, p)
		}
	}
	return nil
}
