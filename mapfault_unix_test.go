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

// TestTruncatedWhileProcessing: a dump or a .sym truncated after it was
// mapped gives an error naming the file, not a SIGBUS (issue 26, item 1).
func TestTruncatedWhileProcessing(t *testing.T) {
	for _, victim := range []string{"dump", "sym"} {
		t.Run(victim, func(t *testing.T) {
			dumps := corpus.CopyTestdata(t, "dumps")
			syms := corpus.CopyTestdata(t, "symbols")
			dump := filepath.Join(dumps, "amd64-fp.dmp")
			corpus.GrowPastReadWhole(t, dump)
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
