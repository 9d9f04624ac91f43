package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// A directory's files sniffed -j at a time give the inputs and skips of
// one at a time, in the walk's order: dumps, symbol files with and
// without the name, text, empty files and dangling links mixed over
// several subdirectories, enough files for several sniffing goroutines.
func TestFindInputsSameAtAnyJobs(t *testing.T) {
	dump, err := os.ReadFile(corpus.Testdata(t, "dumps", "amd64-fp.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	contents := [][]byte{dump, []byte("MODULE Linux x86_64 0123 a.so\n"), []byte("not a dump\n"), nil}
	names := []string{"c%03d.dmp", "c%03d.sym", "c%03d.txt", "c%03d"}
	dir := t.TempDir()
	for i := range 300 {
		sub := filepath.Join(dir, fmt.Sprintf("d%d", i%7))
		must(t, os.MkdirAll(sub, 0o755))
		p := filepath.Join(sub, fmt.Sprintf(names[(i/3)%len(names)], i))
		if i%50 == 49 {
			if err := os.Symlink(filepath.Join(dir, "gone"), p); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			continue
		}
		must(t, os.WriteFile(p, contents[i%len(contents)], 0o644))
	}
	mine := func(string) bool { return true }
	want, err := findInputs([]string{dir}, nil, false, 1, mine, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.paths) < 50 || len(want.skipped) < 2 {
		t.Fatalf("one at a time: %d inputs, skips %v: want a mix", len(want.paths), want.skipped)
	}
	for _, jobs := range []int{2, 3, 8} {
		got, err := findInputs([]string{dir}, nil, false, jobs, mine, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want.paths, got.paths); d != "" {
			t.Errorf("-j %d: inputs differ (-one +many):\n%s", jobs, d)
		}
		if d := cmp.Diff(want.skipped, got.skipped); d != "" || got.problems != want.problems {
			t.Errorf("-j %d: skips differ (-one +many):\n%s\nproblems %d, want %d", jobs, d, got.problems, want.problems)
		}
	}
}
