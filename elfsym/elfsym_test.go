package elfsym

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/debuginfod"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

func testFile(t *testing.T, name string) []byte {
	return corpus.ReadZstd(t, "testdata/"+name+".zst")
}

func buildID(t *testing.T, data []byte) []byte {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	id, err := debuginfod.BuildID(f)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func put(t *testing.T, path string, data []byte) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	stripped, debug := testFile(t, "prog-stripped"), testFile(t, "prog.debug")
	id := buildID(t, stripped)
	if !bytes.Equal(id, buildID(t, debug)) {
		t.Fatal("the debug file's build id differs from the binary's")
	}
	other := corpus.ReadZstd(t, "../elfcfi/testdata/amd64-eh.zst")

	t.Run("build-id tree", func(t *testing.T) {
		root := t.TempDir()
		put(t, filepath.Join(root, "prog"), stripped)
		idHex := hexString(id)
		put(t, filepath.Join(root, ".build-id", idHex[:2], idHex[2:]+".debug"), debug)
		l := &Locator{Roots: []string{root}}
		f, err := l.Find(context.Background(), "/usr/bin/prog", id)
		if err != nil || f.Binary != filepath.Join(root, "prog") || !strings.HasSuffix(f.Debug, idHex[2:]+".debug") {
			t.Fatalf("%+v, %v", f, err)
		}
	})
	t.Run("debuglink", func(t *testing.T) {
		root := t.TempDir()
		put(t, filepath.Join(root, "prog"), stripped)
		put(t, filepath.Join(root, ".debug", "prog.debug"), debug)
		l := &Locator{Roots: []string{root}}
		f, err := l.Find(context.Background(), "prog", id)
		if err != nil || f.Debug != filepath.Join(root, ".debug", "prog.debug") {
			t.Fatalf("%+v, %v", f, err)
		}
	})
	t.Run("system debug dir", func(t *testing.T) {
		root, sys := t.TempDir(), t.TempDir()
		put(t, filepath.Join(root, "prog"), stripped)
		put(t, filepath.Join(sys, root, "prog.debug"), debug)
		l := &Locator{Roots: []string{root}, DebugDir: sys}
		f, err := l.Find(context.Background(), "prog", id)
		if err != nil || f.Debug != filepath.Join(sys, root, "prog.debug") {
			t.Fatalf("%+v, %v", f, err)
		}
	})
	t.Run("wrong build id refused", func(t *testing.T) {
		root := t.TempDir()
		put(t, filepath.Join(root, "prog"), other)
		put(t, filepath.Join(root, "prog.debug"), other)
		l := &Locator{Roots: []string{root}}
		f, err := l.Find(context.Background(), "prog", id)
		if err != nil || f.Binary != "" || f.Debug != "" {
			t.Fatalf("%+v, %v", f, err)
		}
		if len(f.Refused) != 1 || !strings.Contains(f.Refused[0].Reason, "build id") {
			t.Errorf("refusals %+v, want one naming the build id", f.Refused)
		}
	})
	t.Run("names from the dump stay in the roots", func(t *testing.T) {
		root := t.TempDir()
		put(t, filepath.Join(root, "prog"), stripped)
		l := &Locator{Roots: []string{filepath.Join(root, "sub")}}
		for _, name := range []string{"..", "../prog", "/", ""} {
			f, err := l.Find(context.Background(), name, id)
			if err != nil || f.Binary != "" {
				t.Errorf("%q: %+v, %v", name, f, err)
			}
		}
	})
	t.Run("debuginfod", func(t *testing.T) {
		idHex := hexString(id)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/buildid/" + idHex + "/executable":
				w.Write(stripped)
			case "/buildid/" + idHex + "/debuginfo":
				w.Write(debug)
			default:
				http.NotFound(w, r)
			}
		}))
		defer srv.Close()
		l := &Locator{Debuginfod: &debuginfod.Client{URLs: []string{srv.URL}, CacheDir: t.TempDir()}}
		f, err := l.Find(context.Background(), "/usr/bin/prog", id)
		if err != nil || f.Binary == "" || f.Debug == "" {
			t.Fatalf("%+v, %v", f, err)
		}
		if got, _ := os.ReadFile(f.Debug); !bytes.Equal(got, debug) {
			t.Error("the debug file is not the served one")
		}
	})
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// nmSymbols reads testdata/prog.nm.txt, binutils nm -S's function
// symbols of prog.
func nmSymbols(t *testing.T) []Symbol {
	data, err := os.ReadFile("testdata/prog.nm.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []Symbol
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		addr, _ := strconv.ParseUint(f[0], 16, 64)
		size, _ := strconv.ParseUint(f[1], 16, 64)
		out = append(out, Symbol{addr, size, f[3]})
	}
	if len(out) < 5 {
		t.Fatalf("only %d symbols in prog.nm.txt", len(out))
	}
	return out
}

// TestTable checks the symbols of prog, of its stripped copy with the
// separate debug file, and of its MiniDebugInfo copy against nm's.
func TestTable(t *testing.T) {
	want := nmSymbols(t)
	for _, files := range [][]string{{"prog"}, {"prog-stripped", "prog.debug"}, {"prog-mini"}} {
		t.Run(strings.Join(files, "+"), func(t *testing.T) {
			var efs []*elf.File
			for _, name := range files {
				f, err := elf.NewFile(bytes.NewReader(testFile(t, name)))
				if err != nil {
					t.Fatal(err)
				}
				efs = append(efs, f)
			}
			tab, err := NewTable(efs...)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range want {
				for _, a := range []uint64{w.Addr, w.Addr + w.Size - 1} {
					got, ok := tab.Lookup(a)
					if !ok || got.Name != w.Name || got.Addr != w.Addr {
						t.Errorf("Lookup(%#x) = %+v, %v; want %s at %#x", a, got, ok, w.Name, w.Addr)
					}
				}
				if got, ok := tab.Lookup(w.Addr + w.Size); ok && got.Addr == w.Addr {
					t.Errorf("Lookup(%#x) past %s = %+v", w.Addr+w.Size, w.Name, got)
				}
			}
		})
	}
}

func TestStrippedHasNoSymbols(t *testing.T) {
	f, err := elf.NewFile(bytes.NewReader(testFile(t, "prog-stripped")))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := NewTable(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tab.Lookup(nmSymbols(t)[1].Addr); ok {
		t.Error("a stripped file without .dynsym functions names a static function")
	}
}
