package symsrv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// A 404 is remembered in the cache directory: a second supplier over the
// same cache (a later run) does not ask again within the TTL, and does
// once it has passed.
func TestSupplierMissCached(t *testing.T) {
	srv := newSymbolServer(t, files(nil))
	cache := t.TempDir()
	key := symfile.ModuleKey{DebugFile: "libm.so", DebugID: "ID"}
	path := "/libm.so/ID/libm.so.sym"
	ask := func(opts ...Option) {
		t.Helper()
		s, err := NewSupplier([]string{srv.URL}, cache, opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Symbols(key)
		if !errors.Is(err, symfile.ErrNotFound) {
			t.Fatalf("%v: want ErrNotFound", err)
		}
	}
	ask()
	var tried []string
	ask(WithTrace(func(_ symfile.ModuleKey, where string, err error) { tried = append(tried, err.Error()) }))
	if n := srv.count(path); n != 1 {
		t.Fatalf("asked %d times in two runs, want 1", n)
	}
	if len(tried) != 1 || !strings.Contains(tried[0], "negative cache") {
		t.Errorf("trace %q does not say the miss was remembered", tried)
	}
	// 0 turns the negative cache off: asked, and nothing is read.
	ask(WithMissTTL(0))
	if n := srv.count(path); n != 2 {
		t.Fatalf("with the negative cache off: asked %d times in all, want 2", n)
	}
	// Once the TTL has passed, the server is asked again.
	old := time.Now().Add(-2 * time.Hour)
	fetch.NewStore(cache, time.Hour).WithClock(func() time.Time { return old }).RecordMiss(srv.URL + path)
	ask(WithMissTTL(time.Hour))
	if n := srv.count(path); n != 3 {
		t.Fatalf("after the TTL: asked %d times in all, want 3", n)
	}
	ask(WithMissTTL(time.Hour)) // the fresh miss is remembered again
	if n := srv.count(path); n != 3 {
		t.Errorf("after re-recording: asked %d times in all, want 3", n)
	}
	// No partial file is left behind.
	if ents, _ := os.ReadDir(filepath.Join(cache, fetch.PartialDirName)); len(ents) != 0 {
		t.Errorf("partial directory holds %v", ents)
	}
}

// A miss is per server: a second server is still asked.
func TestSupplierMissPerServer(t *testing.T) {
	a := newSymbolServer(t, files(nil))
	cache := t.TempDir()
	key := symfile.ModuleKey{DebugFile: "libm.so", DebugID: "ID"}
	s, _ := NewSupplier([]string{a.URL}, cache)
	s.Symbols(key)
	b := newSymbolServer(t, files(map[string]string{"/libm.so/ID/libm.so.sym": appSym("libm.so", "ID")}))
	s, _ = NewSupplier([]string{a.URL, b.URL}, cache)
	f, err := s.Symbols(key)
	if err != nil || lookupName(t, f) != "libm.so_fn" {
		t.Fatalf("second server: %v", err)
	}
	if a.total() != 1 {
		t.Errorf("first server asked %d times, want 1", a.total())
	}
}

// A miss file keeps no credentials of the server's URL.
func TestMissFileHoldsNoCredentials(t *testing.T) {
	srv := newSymbolServer(t, files(nil))
	cache := t.TempDir()
	u := strings.Replace(srv.URL, "http://", "http://user:secret@", 1) + "/store?token=hunter2"
	s, err := NewSupplier([]string{u}, cache)
	if err != nil {
		t.Fatal(err)
	}
	s.Symbols(symfile.ModuleKey{DebugFile: "libm.so", DebugID: "ID"})
	s2, _ := NewSupplier([]string{u}, cache)
	s2.Symbols(symfile.ModuleKey{DebugFile: "libm.so", DebugID: "ID"})
	if n := srv.total(); n != 1 {
		t.Errorf("asked %d times in two runs, want 1", n)
	}
	filepath.WalkDir(filepath.Join(cache, fetch.MissDirName), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			if strings.Contains(string(data), "secret") || strings.Contains(string(data), "hunter2") {
				t.Errorf("miss file holds credentials: %q", data)
			}
		}
		return nil
	})
}
