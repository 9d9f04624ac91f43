package symsrv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	p := filepath.Join(cache, missDirName)
	var missFile string
	filepath.WalkDir(p, func(q string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			missFile = q
		}
		return nil
	})
	if missFile == "" {
		t.Fatal("no miss file written")
	}
	old := time.Now().Add(-2 * time.Hour)
	rewriteMiss(t, missFile, srv.URL+path, old.Unix())
	ask(WithMissTTL(time.Hour))
	if n := srv.count(path); n != 3 {
		t.Fatalf("after the TTL: asked %d times in all, want 3", n)
	}
	ask(WithMissTTL(time.Hour)) // the fresh miss is remembered again
	if n := srv.count(path); n != 3 {
		t.Errorf("after re-recording: asked %d times in all, want 3", n)
	}
	// No partial file is left behind.
	if ents, _ := os.ReadDir(filepath.Join(cache, partialDirName)); len(ents) != 0 {
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

func rewriteMiss(t *testing.T, p, url string, unix int64) {
	t.Helper()
	if err := os.WriteFile(p, fmt.Appendf(nil, "%surl %s\ntime %d\n", missMagic, missName(url), unix), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A miss file that is not exactly what the supplier writes never stops a
// request: dated in the future (which would suppress for ever), another
// URL, garbage, oversized, a directory, a symlink.
func TestSupplierHostileMissFiles(t *testing.T) {
	key := symfile.ModuleKey{DebugFile: "libh.so", DebugID: "ID"}
	path := "/libh.so/ID/libh.so.sym"
	future := time.Now().Add(100 * 365 * 24 * time.Hour).Unix()
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, p, url string)
	}{
		{"future", func(t *testing.T, p, url string) { rewriteMiss(t, p, url, future) }},
		{"max-int", func(t *testing.T, p, url string) { rewriteMiss(t, p, url, 1<<63-1) }},
		{"zero", func(t *testing.T, p, url string) { rewriteMiss(t, p, url, 0) }},
		{"other-url", func(t *testing.T, p, url string) { rewriteMiss(t, p, url+"x", time.Now().Unix()) }},
		{"trailing", func(t *testing.T, p, url string) {
			os.WriteFile(p, fmt.Appendf(nil, "%surl %s\ntime %d\nttl forever\n", missMagic, missName(url), time.Now().Unix()), 0o644)
		}},
		{"garbage", func(t *testing.T, p, url string) { os.WriteFile(p, []byte("\x00\xff garbage"), 0o644) }},
		{"empty", func(t *testing.T, p, url string) { os.WriteFile(p, nil, 0o644) }},
		{"huge", func(t *testing.T, p, url string) {
			os.WriteFile(p, []byte(missMagic+"url "+missName(url)+"\ntime 1\n"+strings.Repeat("x", maxMissFile)), 0o644)
		}},
		{"directory", func(t *testing.T, p, url string) { os.Mkdir(p, 0o755) }},
		{"symlink", func(t *testing.T, p, url string) {
			good := filepath.Join(t.TempDir(), "miss")
			rewriteMiss(t, good, url, time.Now().Unix())
			os.Symlink(good, p)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSymbolServer(t, files(map[string]string{path: appSym("libh.so", "ID")}))
			cache := t.TempDir()
			s, err := NewSupplier([]string{srv.URL}, cache)
			if err != nil {
				t.Fatal(err)
			}
			p := s.missPath(srv.URL + path)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			tc.write(t, p, srv.URL+path)
			f, err := s.Symbols(key)
			if err != nil || lookupName(t, f) != "libh.so_fn" {
				t.Fatalf("%v: the hostile miss file suppressed the download", err)
			}
			if srv.count(path) != 1 {
				t.Errorf("asked %d times, want 1", srv.count(path))
			}
		})
	}
}

// The miss file's name comes from a hash: module names that are odd but
// safe never make a path of their own under .misses.
func TestMissPathIsAHash(t *testing.T) {
	s, err := NewSupplier([]string{"http://127.0.0.1:1"}, "/cache")
	if err != nil {
		t.Fatal(err)
	}
	p := s.missPath("http://127.0.0.1:1/../../etc/x.sym/ID/x.sym")
	rel, err := filepath.Rel(filepath.Join("/cache", missDirName), p)
	if err != nil || strings.Contains(rel, "..") || len(filepath.Base(p)) != 64 {
		t.Errorf("miss path %q", p)
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
	filepath.WalkDir(filepath.Join(cache, missDirName), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			if strings.Contains(string(data), "secret") || strings.Contains(string(data), "hunter2") {
				t.Errorf("miss file holds credentials: %q", data)
			}
		}
		return nil
	})
}

// Recording a miss prunes the expired miss files of its bucket, and only
// those: the negative cache does not grow with every miss ever recorded.
func TestRecordMissPrunesExpired(t *testing.T) {
	srv := newSymbolServer(t, files(nil))
	cache := t.TempDir()
	s, err := NewSupplier([]string{srv.URL}, cache, WithMissTTL(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	target := srv.URL + "/libp.so/ID/libp.so.sym"
	bucket := filepath.Dir(s.missPath(target))
	if err := os.MkdirAll(filepath.Join(bucket, "subdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	old, fresh := filepath.Join(bucket, "old"), filepath.Join(bucket, "fresh")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Symbols(symfile.ModuleKey{DebugFile: "libp.so", DebugID: "ID"}); !errors.Is(err, symfile.ErrNotFound) {
		t.Fatalf("%v: want ErrNotFound", err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("expired miss file kept: %v", err)
	}
	for _, p := range []string{fresh, filepath.Join(bucket, "subdir"), s.missPath(target)} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v; want it kept", filepath.Base(p), err)
		}
	}
}
