package symfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// decompressForTest is the Decompressor of this package's tests: package
// symcompress has the command's, but it imports symfile.
func decompressForTest(r io.Reader, name string) (io.Reader, func(), error) {
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, err
		}
		return zr, func() { zr.Close() }, nil
	}
	zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
	if err != nil {
		return nil, nil, err
	}
	return zr, zr.Close, nil
}

// testBudget is NewDecompressBudget with decompressForTest.
func testBudget(perFile, total int64) *DecompressBudget {
	return NewDecompressBudget(perFile, total).WithDecompressor(decompressForTest)
}

// testOpen opens a plain or compressed symbol file.
func testOpen(path string) (*File, error) { return OpenWithBudget(path, testBudget(0, 0)) }

// testDirSupplier is NewDirSupplier reading compressed files.
func testDirSupplier(roots ...string) *DirSupplier {
	return NewDirSupplier(roots...).WithDecompressBudget(testBudget(0, 0))
}

// testIndexDir is NewIndexDir reading compressed files. The test waits
// for its index writes before it ends, as a process waits before it exits,
// so that none is still writing into a directory the test removes.
func testIndexDir(tb testing.TB, dir string, warn func(error)) *IndexDir {
	d := NewIndexDir(dir, warn).WithDecompressBudget(testBudget(0, 0))
	tb.Cleanup(d.Wait)
	return d
}

// TestNoDecompressor: without a Decompressor, a compressed file is
// refused with ErrNoDecompressor, by Open, a DirSupplier (as corrupt
// symbols) and an IndexDir; plain files are read as ever.
func TestNoDecompressor(t *testing.T) {
	dir := t.TempDir()
	sym := []byte("MODULE Linux x86_64 ID1 lib.so\nPUBLIC 10 0 f\n")
	p := filepath.Join(dir, "lib.so", "ID1", "lib.so.sym.gz")
	writeFile(t, p, gz(t, sym))
	if _, err := Open(p); !errors.Is(err, ErrNoDecompressor) {
		t.Errorf("Open: %v, want ErrNoDecompressor", err)
	}
	_, err := NewDirSupplier(dir).Symbols(ModuleKey{DebugFile: "lib.so", DebugID: "ID1"})
	if ce := new(CorruptError); !errors.As(err, &ce) || !errors.Is(err, ErrNoDecompressor) {
		t.Errorf("DirSupplier: %v, want a CorruptError for ErrNoDecompressor", err)
	}
	if _, err := NewIndexDir(t.TempDir(), nil).Open(p); !errors.Is(err, ErrNoDecompressor) {
		t.Errorf("IndexDir.Open: %v, want ErrNoDecompressor", err)
	}
	if f, err := testOpen(p); err != nil || f.Module().Name != "lib.so" {
		t.Errorf("with a Decompressor: %v", err)
	}
	plain := filepath.Join(dir, "plain.sym")
	if err := os.WriteFile(plain, sym, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(plain); err != nil {
		t.Errorf("Open of a plain file: %v", err)
	}
}
