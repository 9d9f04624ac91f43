package symfile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func gz(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zst(t *testing.T, b []byte) []byte {
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return w.EncodeAll(b, nil)
}

func TestDirSupplierLayout(t *testing.T) {
	root1, root2 := t.TempDir(), t.TempDir()
	sym := func(name string) []byte {
		return []byte("MODULE windows x86 ABC1 " + name + "\nPUBLIC 1000 0 " + name + "_fn\n")
	}
	writeFile(t, filepath.Join(root1, "app.pdb", "ABC1", "app.sym"), sym("app.pdb"))                // .pdb replaced
	writeFile(t, filepath.Join(root2, "libx.so", "ID2", "libx.so.sym.gz"), gz(t, sym("libx.so")))   // gzip, second root
	writeFile(t, filepath.Join(root2, "liby.so", "ID3", "liby.so.sym.zst"), zst(t, sym("liby.so"))) // zstd
	writeFile(t, filepath.Join(root1, "code.dll", "CODEID", "code.dll.sym"), sym("code.dll"))       // code file fallback
	writeFile(t, filepath.Join(root1, "bad.so", "ID4", "bad.so.sym"), []byte("MODULE Linux x86_64 ID4 bad.so\nFUNC 10\n"))
	single := filepath.Join(t.TempDir(), "whatever.sym")
	writeFile(t, single, []byte("MODULE Linux x86_64 ID5 single.so\nPUBLIC 2000 0 single_fn\n"))
	s := testDirSupplier(filepath.Join(root1, "missing"), root1, root2, single)

	for _, tc := range []struct {
		key  ModuleKey
		want string
	}{
		{ModuleKey{DebugFile: `C:\build\app.pdb`, DebugID: "ABC1", CodeFile: `C:\build\app.exe`}, "app.pdb_fn"},
		{ModuleKey{DebugFile: "/usr/lib/libx.so", DebugID: "ID2"}, "libx.so_fn"},
		{ModuleKey{DebugFile: "liby.so", DebugID: "ID3"}, "liby.so_fn"},
		{ModuleKey{DebugFile: "nothere.pdb", DebugID: "X", CodeFile: `c:\w\code.dll`, CodeID: "CODEID"}, "code.dll_fn"},
		{ModuleKey{DebugFile: "/lib/single.so", DebugID: "id5"}, "single_fn"},
	} {
		f, err := s.Symbols(tc.key)
		if err != nil {
			t.Errorf("%+v: %v", tc.key, err)
			continue
		}
		sym, ok := f.Lookup(0x2100)
		if !ok || sym.Name != tc.want {
			t.Errorf("%+v: Lookup = %q, want %q", tc.key, sym.Name, tc.want)
		}
	}
	// Corrupt: the File comes back with a *CorruptError naming the line.
	f, err := s.Symbols(ModuleKey{DebugFile: "bad.so", DebugID: "ID4"})
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Line != 2 || f == nil {
		t.Errorf("bad.so: %v, %v", f, err)
	}
	// Names from a dump cannot leave the roots.
	writeFile(t, filepath.Join(filepath.Dir(root1), "escape.sym"), sym("escape"))
	for _, key := range []ModuleKey{
		{DebugFile: "..", DebugID: "..", CodeFile: "..", CodeID: ".."},
		{DebugFile: "app.pdb", DebugID: "../../ABC1"},
		{DebugFile: "app.pdb", DebugID: `..\ABC1`},
		{DebugFile: "../../../escape", DebugID: ".."},
		{DebugFile: "", DebugID: ""},
		{DebugFile: "app.pdb", DebugID: "/ABC1"},
		{DebugFile: "x\x00", DebugID: "ABC1"},
	} {
		if f, err := s.Symbols(key); !errors.Is(err, ErrNotFound) {
			t.Errorf("%+v: got %v, %v; want ErrNotFound", key, f, err)
		}
	}
	for _, p := range candidatePaths(root1, ModuleKey{DebugFile: `a/b\..`, DebugID: "..", CodeFile: "../x", CodeID: "y/../../z"}) {
		t.Errorf("unsafe candidate path %s", p)
	}
}

func TestDirSupplierLoadsOnce(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "m.so", "ID", "m.so.sym")
	writeFile(t, p, []byte("MODULE Linux x86_64 ID m.so\nPUBLIC 10 0 f\n"))
	s := testDirSupplier(root)
	key := ModuleKey{DebugFile: "m.so", DebugID: "ID"}
	var wg sync.WaitGroup
	files := make([]*File, 8)
	for i := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			files[i], _ = s.Symbols(key)
		}()
	}
	wg.Wait()
	for _, f := range files {
		if f == nil || f != files[0] {
			t.Fatalf("Symbols returned different files: %p %p", f, files[0])
		}
	}
	// The same file reached through the code names is the same File.
	if f, _ := s.Symbols(ModuleKey{CodeFile: "m.so", CodeID: "ID"}); f != files[0] {
		t.Errorf("code-name lookup loaded the file again")
	}
	os.Remove(p) // a second request must not touch the disk again
	if f, err := s.Symbols(key); f != files[0] || err != nil {
		t.Errorf("second Symbols = %p, %v", f, err)
	}
}

func TestDirSupplierSharedCorpus(t *testing.T) {
	root := corpus.Shared(t, "corpus", "breakpad", "symbols")
	s := testDirSupplier(root)
	f, err := s.Symbols(ModuleKey{DebugFile: `c:\test_app.pdb`, DebugID: "5A9832E5287241C1838ED98914E9B7FF1"})
	if err != nil {
		t.Fatal(err)
	}
	if m := f.Module(); m.Name != "test_app.pdb" || m.ID != "5A9832E5287241C1838ED98914E9B7FF1" {
		t.Errorf("Module = %+v", m)
	}
	gzRoot := corpus.Shared(t, "corpus", "breakpad-generated", "stress", "symbols")
	f, err = testDirSupplier(gzRoot).Symbols(ModuleKey{DebugFile: "node", DebugID: "DFF2EAEB4D36EB5E7096F0F7722A69EE0"})
	if err != nil || f.Module().Name != "node" {
		t.Fatalf("node.sym.gz: %v", err)
	}
}

// Lookups from many goroutines on one File (threads are walked in parallel).
func TestConcurrentLookups(t *testing.T) {
	f := openShared(t, "corpus", "rust-minidump", "testdata", "symbols", "crash-client", "509C0610949836F7B70BD88BCF03E5400", "crash-client.sym")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 200 {
				e := f.funcAt((g*977 + k*131) % f.funcs.len())
				if s, ok := f.Lookup(e.base); !ok || s.Base != e.base {
					t.Errorf("Lookup(%#x) = %+v, %v", e.base, s, ok)
					return
				}
				f.CFIRules(e.base)
				f.StackWin(e.base)
			}
		}()
	}
	wg.Wait()
}

func TestOpenCompressedErrors(t *testing.T) {
	dir := t.TempDir()
	full := gz(t, []byte("MODULE Linux x86_64 ID m\nPUBLIC 10 0 f\n"))
	for name, data := range map[string][]byte{
		"trunc.sym.gz":    full[:len(full)/2],
		"garbage.sym.gz":  []byte("not gzip at all"),
		"garbage.sym.zst": []byte("not zstd at all"),
	} {
		p := filepath.Join(dir, name)
		writeFile(t, p, data)
		f, err := testOpen(p)
		var ce *CorruptError
		if f != nil || !errors.As(err, &ce) || ce.File != p {
			t.Errorf("%s: Open = %v, %v; want a *CorruptError and no File", name, f, err)
		}
	}
	p := filepath.Join(dir, "ok.sym.gz")
	writeFile(t, p, full)
	if f, err := testOpen(p); err != nil || f.Module().Name != "m" {
		t.Errorf("ok.sym.gz: %v", err)
	}
	if _, err := testOpen(filepath.Join(dir, "missing.sym")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := testOpen(dir); err == nil {
		t.Error("testOpen(directory) succeeded")
	}
	empty := filepath.Join(dir, "empty.sym")
	writeFile(t, empty, nil)
	if f, err := testOpen(empty); err != nil || f.HasFunctionAt(0) {
		t.Errorf("empty file: %v", err)
	}
}
