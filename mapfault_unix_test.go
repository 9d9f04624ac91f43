//go:build unix

package stackwalk_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	stackwalk "github.com/minidump-stackwalk/minidump-stackwalk"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// truncatingSupplier serves symbols from dir and, on its first call,
// truncates the file named by truncate (or, when that is "", the symbol
// file it has just loaded): the file is mapped by then, so reading it on
// faults as when a store or an uploader rewrites it in place.
type truncatingSupplier struct {
	t        *testing.T
	dir      symfile.Supplier
	truncate string
	once     sync.Once
}

func (s *truncatingSupplier) Symbols(m symfile.ModuleKey) (*symfile.File, error) {
	f, err := s.dir.Symbols(m)
	s.once.Do(func() {
		path := s.truncate
		if path == "" && f != nil {
			path = f.Name()
		}
		if path != "" {
			if terr := os.Truncate(path, 0); terr != nil {
				s.t.Error(terr)
			}
		}
	})
	return f, err
}

// copyTree copies the files under src into a new directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// growPastReadWhole appends 2 MiB of zeros to the dump at path: the
// minidump reader maps only a file over 1 MiB (it reads a smaller one into
// memory, where truncating the file changes nothing).
func growPastReadWhole(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err == nil {
		err = os.Truncate(path, st.Size()+2<<20)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestTruncatedWhileProcessing: a dump or a .sym truncated after it was
// mapped gives an error naming the file, not a SIGBUS (issue 26, item 1).
func TestTruncatedWhileProcessing(t *testing.T) {
	for _, victim := range []string{"dump", "sym"} {
		t.Run(victim, func(t *testing.T) {
			dumps := copyTree(t, corpus.Testdata(t, "dumps"))
			syms := copyTree(t, corpus.Testdata(t, "symbols"))
			dump := filepath.Join(dumps, "amd64-fp.dmp")
			growPastReadWhole(t, dump)
			d, err := stackwalk.Open(dump)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			sup := &truncatingSupplier{t: t, dir: symfile.NewDirSupplier(syms)}
			if victim == "dump" {
				sup.truncate = dump
			}
			st, err := d.Process(sup, processor.Options{Workers: 2})
			if err == nil {
				t.Fatal("no error after the file was truncated")
			}
			want := dump
			if victim == "sym" {
				want = filepath.Join(syms, "crashdemo")
			}
			if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "truncated") {
				t.Errorf("error %q does not name %s and say what happened", err, want)
			}
			t.Log(err)
			if st == nil || len(st.Failures()) == 0 {
				t.Errorf("state %+v: want one with the failure", st)
			}
		})
	}
}
