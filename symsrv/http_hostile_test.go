package symsrv

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// A server that sends headers and then trickles, or never answers, is
// abandoned after one rate window and not asked again: a run with many
// modules costs one window, not a timeout per module.
func TestSupplierTooSlow(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler func(http.ResponseWriter, *http.Request)
	}{
		{"trickle", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("MODULE Linux x86_64 ID lib.so\n"))
			for {
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
					w.Write([]byte("x"))
				}
			}
		}},
		{"no headers", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSymbolServer(t, tc.handler)
			cache := t.TempDir()
			s, err := NewSupplier([]string{srv.URL}, cache, WithTimeout(20*time.Second), WithMinRate(1<<10, 200*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			for i := range 20 {
				_, err := s.Symbols(symfile.ModuleKey{DebugFile: fmt.Sprintf("lib%d.so", i), DebugID: "ID"})
				want := ErrServerDown
				if i == 0 {
					want = ErrTooSlow
				}
				if !errors.Is(err, want) {
					t.Fatalf("module %d: %v, want %v", i, err, want)
				}
			}
			// Which bound applied, not speed: the 20 s request timeout did not.
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("20 modules took %v", d)
			}
			if n := srv.total(); n != 1 {
				t.Errorf("slow server asked %d times, want 1", n)
			}
			if ents, _ := os.ReadDir(filepath.Join(cache, fetch.PartialDirName)); len(ents) != 0 {
				t.Errorf("partial files left: %v", ents)
			}
		})
	}
}

// A download that does not parse cleanly is used for this run (its good
// records, with the error) but not cached: the next run asks again.
func TestSupplierCorruptNotCached(t *testing.T) {
	body := "MODULE Linux x86_64 ID lib.so\nFUNC zz\nPUBLIC 1000 0 lib.so_fn\n"
	srv := newSymbolServer(t, files(map[string]string{"/lib.so/ID/lib.so.sym": body}))
	cache := t.TempDir()
	key := symfile.ModuleKey{DebugFile: "lib.so", DebugID: "ID"}
	for run := 1; run <= 2; run++ {
		s, err := NewSupplier([]string{srv.URL}, cache)
		if err != nil {
			t.Fatal(err)
		}
		f, err := s.Symbols(key)
		var ce *symfile.CorruptError
		if !errors.As(err, &ce) || ce.Line != 2 {
			t.Fatalf("run %d: %v, want a *symfile.CorruptError at line 2", run, err)
		}
		if got := lookupName(t, f); got != "lib.so_fn" {
			t.Errorf("run %d: symbol %q", run, got)
		}
		if _, err := os.Stat(filepath.Join(cache, "lib.so", "ID", "lib.so.sym")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("run %d: corrupt file cached (%v)", run, err)
		}
		if n := srv.total(); n != run {
			t.Errorf("run %d: %d requests, want %d", run, n, run)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(cache, fetch.PartialDirName)); len(ents) != 0 {
		t.Errorf("partial files left: %v", ents)
	}
}

// A cached file that does not parse is fetched again and replaced; when no
// server has a replacement, it is used as it is.
func TestSupplierEvictsCorruptCache(t *testing.T) {
	cache := t.TempDir()
	cached := filepath.Join(cache, "lib.so", "ID", "lib.so.sym")
	if err := os.MkdirAll(filepath.Dir(cached), 0o755); err != nil {
		t.Fatal(err)
	}
	corrupt := "MODULE Linux x86_64 ID lib.so\nPUBLIC 1000 0 old_fn\nPUBLIC zz\n" // a truncated write
	key := symfile.ModuleKey{DebugFile: "lib.so", DebugID: "ID"}

	empty := newSymbolServer(t, files(nil))
	os.WriteFile(cached, []byte(corrupt), 0o644)
	s, _ := NewSupplier([]string{empty.URL}, cache)
	f, err := s.Symbols(key)
	if !errors.As(err, new(*symfile.CorruptError)) || lookupName(t, f) != "old_fn" || empty.total() != 1 {
		t.Errorf("no replacement: %v, %d requests; want the cached file and its error after one request", err, empty.total())
	}

	good := newSymbolServer(t, files(map[string]string{"/lib.so/ID/lib.so.sym": appSym("lib.so", "ID")}))
	s, _ = NewSupplier([]string{good.URL}, cache)
	f, err = s.Symbols(key)
	if err != nil || lookupName(t, f) != "lib.so_fn" {
		t.Fatalf("replacement: %v", err)
	}
	if data, _ := os.ReadFile(cached); string(data) != appSym("lib.so", "ID") {
		t.Errorf("cache holds %q after the replacement", data)
	}
}

// TestSupplierWrongModuleNotUsed: a server answering every request with
// one Linux symbol file (issue 26) gives nothing for the modules it does
// not name: the download is refused with an error naming the URL and
// what differed, neither used nor cached; the module it names is served.
// A cached file of another module (from a version that did not check) is
// fetched again.
func TestSupplierWrongModuleNotUsed(t *testing.T) {
	linux := "MODULE Linux x86_64 AAAA1111 libc.so.6\nINFO CODE_ID 1111AAAA\nFUNC 1000 10 0 _fini\n"
	srv := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(linux)) })
	cache := t.TempDir()
	s, err := NewSupplier([]string{srv.URL}, cache, WithRetry(RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	ntdll := symfile.ModuleKey{CodeFile: "ntdll.dll", CodeID: "5F5C0D2F1AD4000", DebugFile: "ntdll.pdb", DebugID: "0123456789ABCDEF0123456789ABCDEF1"}
	f, err := s.Symbols(ntdll)
	if f != nil || !errors.Is(err, ErrWrongModule) {
		t.Fatalf("ntdll: file %v, error %v; want ErrWrongModule", f, err)
	}
	for _, want := range []string{srv.URL + "/ntdll.pdb/", `names id "AAAA1111", file "libc.so.6"`, `want debug id "0123456789ABCDEF0123456789ABCDEF1", file "ntdll.pdb"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if left := cachedFiles(t, cache); len(left) != 0 {
		t.Errorf("cached after refusals: %v", left)
	}
	libc := symfile.ModuleKey{CodeFile: "/lib/libc.so.6", CodeID: "1111AAAA", DebugFile: "libc.so.6", DebugID: "aaaa1111"}
	if f, err := s.Symbols(libc); err != nil || f.Module().Name != "libc.so.6" {
		t.Fatalf("libc: %v", err)
	}
	// A file of another module cached by an older version.
	stale := filepath.Join(cache, "ntdll.pdb", ntdll.DebugID, "ntdll.sym")
	writeFile(t, stale, []byte(linux))
	before := srv.total()
	s, _ = NewSupplier([]string{srv.URL}, cache, WithRetry(RetryPolicy{}))
	if f, err := s.Symbols(ntdll); f != nil || !errors.Is(err, ErrWrongModule) || srv.total() == before {
		t.Errorf("stale cached file: file %v, error %v, %d requests", f, err, srv.total()-before)
	}
}

// cachedFiles lists the regular files under cache, bookkeeping (misses,
// partial downloads) left out.
func cachedFiles(t *testing.T, cache string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() && (d.Name() == fetch.MissDirName || d.Name() == fetch.PartialDirName) {
			return filepath.SkipDir
		}
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out
}
