package symcompress

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

const sym = "MODULE Linux x86_64 ID1 lib.so\nPUBLIC 10 0 lib_fn\n"

func gzipped(t *testing.T) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write([]byte(sym)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zstded(t *testing.T) []byte {
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return w.EncodeAll([]byte(sym), nil)
}

// TestDirSupplierReadsCompressed: the store's .sym.gz and .sym.zst files
// (written by the standard library's gzip and by zstd) are found and read,
// and Open reads them too.
func TestDirSupplierReadsCompressed(t *testing.T) {
	root := t.TempDir()
	files := map[string][]byte{
		filepath.Join(root, "lib.so", "ID1", "lib.so.sym.gz"):  gzipped(t),
		filepath.Join(root, "lib.so", "ID2", "lib.so.sym.zst"): zstded(t),
	}
	for p, data := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(p)
		if err != nil || f.Module().Name != "lib.so" {
			t.Errorf("Open(%s): %v", p, err)
		}
	}
	s := NewDirSupplier(root)
	for _, id := range []string{"ID1", "ID2"} {
		f, err := s.Symbols(symfile.ModuleKey{DebugFile: "lib.so", DebugID: id})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if got, ok := f.Lookup(0x10); !ok || got.Name != "lib_fn" {
			t.Errorf("%s: Lookup(0x10) = %+v, %v", id, got, ok)
		}
	}
}

// TestReaderRefusesOtherNames: Reader reads only the formats its name
// says, so that a plain file is never taken for a compressed one.
func TestReaderRefusesOtherNames(t *testing.T) {
	if _, _, err := Reader(bytes.NewReader(gzipped(t)), "lib.so.sym"); err == nil {
		t.Error("Reader accepted a .sym name")
	}
	if _, _, err := Reader(bytes.NewReader([]byte(sym)), "lib.so.sym.gz"); err == nil {
		t.Error("Reader accepted plain text as gzip")
	}
}
