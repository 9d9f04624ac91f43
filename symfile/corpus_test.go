package symfile

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// corpusSymFiles lists every symbol file under ../shared/corpus.
func corpusSymFiles(t testing.TB) []string {
	root := corpus.Shared(t, "corpus")
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".sym") || strings.HasSuffix(p, ".sym.gz") ||
			strings.HasSuffix(p, ".sym.zst") || strings.Contains(p, "resolver-unittest/module")) {
			out = append(out, p)
		}
		return nil
	})
	if len(out) == 0 {
		t.Fatal("no symbol files found in the shared corpus")
	}
	return out
}

func TestCorpusParses(t *testing.T) {
	for _, p := range corpusSymFiles(t) {
		if strings.HasSuffix(p, "_bad.out") {
			continue
		}
		f, err := testOpen(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if f.Module().ID == "" && !strings.Contains(p, "resolver-unittest") {
			t.Errorf("%s: no MODULE id", p)
		}
		if f.funcs.len()+f.pubs.len()+f.cfi.len()+len(f.win) == 0 {
			t.Errorf("%s: no records indexed", p)
		}
		f.Close()
	}
}

// Breakpad's own test data: module3_bad has "FUNC 1000" (too few fields) on
// line 3; module4_bad has line records before any FUNC on lines 4 and 5
// (basic_source_line_resolver_unittest.cc expects both to load as corrupt).
func TestBadModules(t *testing.T) {
	dir := corpus.Shared(t, "corpus", "breakpad", "sym-only", "resolver-unittest")
	for _, tc := range []struct {
		file  string
		lines []int
	}{
		{"module3_bad.out", []int{3}},
		{"module4_bad.out", []int{4, 5}},
	} {
		f, err := testOpen(filepath.Join(dir, tc.file))
		var ce *CorruptError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: err = %v, want *CorruptError", tc.file, err)
		}
		if ce.Line != tc.lines[0] || !strings.HasSuffix(ce.File, tc.file) {
			t.Errorf("%s: error at %s:%d, want line %d", tc.file, ce.File, ce.Line, tc.lines[0])
		}
		var got []int
		for _, e := range f.Errors() {
			got = append(got, e.Line)
		}
		if len(got) != len(tc.lines) || got[0] != tc.lines[0] || got[len(got)-1] != tc.lines[len(tc.lines)-1] {
			t.Errorf("%s: error lines %v, want %v", tc.file, got, tc.lines)
		}
	}
}
