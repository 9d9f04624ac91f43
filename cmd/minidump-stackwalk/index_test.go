package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fetchhelper"
)

// TestMain keeps the command's default --index-dir and --symbols-cache out
// of the user's own caches (corpus.RunWithPrivateUserCache), and builds
// the helper program of symbol downloads (fetchhelper) onto PATH.
func TestMain(m *testing.M) {
	os.Exit(fetchhelper.Run(m, corpus.RunWithPrivateUserCache))
}

// TestIndexDir walks a dump through a fresh index directory (the index is
// built), again (it is mapped), with --no-index and with an index directory
// that cannot be created: the output is the same each time, the directory
// holds an index after the first run, and the last run warns.
func TestIndexDir(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-cpp.dmp")
	syms := corpus.Testdata(t, "symbols")
	want, _, status := runCLI("--no-index", dump, syms)
	if status != exitOK || !strings.Contains(want, "crashdemo") {
		t.Fatalf("--no-index: status %d, output:\n%s", status, want)
	}
	dir := t.TempDir()
	var first []os.FileInfo
	for run := range 2 {
		got, stderr, status := runCLI("--index-dir", dir, dump, syms)
		if status != exitOK || got != want || stderr != "" {
			t.Errorf("run %d through the index: status %d, stderr %q, output differs: %v", run, status, stderr, got != want)
		}
		// The indexes are written while the walk goes on; the command
		// returns once they are whole (renamed into place).
		idx, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
		if len(idx) == 0 {
			t.Fatalf("run %d: no index written in %s", run, dir)
		}
		if tmp, _ := filepath.Glob(filepath.Join(dir, "*.tmp*")); len(tmp) > 0 {
			t.Errorf("run %d: temporary files left: %v", run, tmp)
		}
		for i, p := range idx {
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if run == 0 {
				first = append(first, st)
			} else if i >= len(first) || !os.SameFile(first[i], st) {
				t.Errorf("run 1 rewrote %s: want the index of run 0 mapped", p)
			}
		}
	}
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, stderr, status := runCLI("--index-dir", filepath.Join(blocker, "index"), dump, syms)
	if status != exitOK || got != want || !strings.Contains(stderr, "warning: symbol index directory") {
		t.Errorf("unwritable index directory: status %d, stderr %q, output differs: %v", status, stderr, got != want)
	}
}

// TestWaitThenRaise: a signal caught while indexes are written restores
// the signal's default action, waits for the writes, then raises the same
// signal; a run that ends first raises nothing.
func TestWaitThenRaise(t *testing.T) {
	ch, done := make(chan os.Signal, 1), make(chan struct{})
	var calls []string
	ch <- syscall.SIGTERM
	waitThenRaise(ch, done,
		func(s os.Signal) { calls = append(calls, "reset "+s.String()) },
		func() { calls = append(calls, "wait") },
		func(s os.Signal) { calls = append(calls, "raise "+s.String()) })
	want := []string{"reset terminated", "wait", "raise terminated"}
	if !slices.Equal(calls, want) {
		t.Errorf("on a signal: %q, want %q", calls, want)
	}
	// The run ended (done) with a signal delivered and not yet taken: it is
	// raised all the same.
	calls = nil
	close(done)
	ch <- syscall.SIGTERM
	waitThenRaise(ch, done,
		func(s os.Signal) { calls = append(calls, "reset "+s.String()) },
		func() { calls = append(calls, "wait") },
		func(s os.Signal) { calls = append(calls, "raise "+s.String()) })
	if !slices.Equal(calls, want) {
		t.Errorf("a signal pending at the end: %q, want %q", calls, want)
	}
	calls = nil
	waitThenRaise(make(chan os.Signal), done, func(os.Signal) { calls = append(calls, "reset") },
		func() { calls = append(calls, "wait") }, func(os.Signal) { calls = append(calls, "raise") })
	if len(calls) != 0 {
		t.Errorf("without a signal: %q, want nothing", calls)
	}
}
