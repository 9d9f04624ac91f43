package symsrv

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

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
			if ents, _ := os.ReadDir(filepath.Join(cache, partialDirName)); len(ents) != 0 {
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
	if ents, _ := os.ReadDir(filepath.Join(cache, partialDirName)); len(ents) != 0 {
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

// Partial files of processes that are gone, or older than a day, are
// removed before the first download; those of a running process are not.
func TestSupplierCleansPartialFiles(t *testing.T) {
	cache := t.TempDir()
	dir := filepath.Join(cache, partialDirName)
	os.MkdirAll(dir, 0o755)
	me := strconv.Itoa(os.Getpid())
	dead := "2147483646-1.sym" // above any pid_max
	live, old := me+"-2.sym", me+"-3.sym"
	for _, n := range []string{dead, live, old} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("MODULE partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-48 * time.Hour)
	os.Chtimes(filepath.Join(dir, old), past, past)
	// A leftover of the earlier layout, beside the cached file.
	legacy := filepath.Join(cache, "lib.so", "ID", ".download-123")
	os.MkdirAll(filepath.Dir(legacy), 0o755)
	os.WriteFile(legacy, []byte("MODULE partial"), 0o644)
	os.Chtimes(legacy, past, past)
	srv := newSymbolServer(t, files(map[string]string{"/lib.so/ID/lib.so.sym": appSym("lib.so", "ID")}))
	s, _ := NewSupplier([]string{srv.URL}, cache)
	if _, err := s.Symbols(symfile.ModuleKey{DebugFile: "lib.so", DebugID: "ID"}); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[string]bool{dead: false, live: true, old: false} {
		if _, err := os.Stat(filepath.Join(dir, n)); (err == nil) != want {
			t.Errorf("%s: present %v, want %v", n, err == nil, want)
		}
	}
	if _, err := os.Stat(legacy); err == nil {
		t.Error("old .download- file left beside the cached file")
	}
}
