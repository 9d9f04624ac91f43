package symfile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/hostile"
)

// writeBomb writes a compressed symbol bomb of size decompressed bytes
// under dir in the store layout and returns its path.
func writeBomb(t *testing.T, dir string, size int64, ext string) string {
	t.Helper()
	var buf bytes.Buffer
	var err error
	switch ext {
	case ".gz":
		zw := gzip.NewWriter(&buf)
		err = hostile.SymbolBomb(zw, size)
		err = errors.Join(err, zw.Close())
	case ".zst":
		zw, _ := zstd.NewWriter(&buf)
		err = hostile.SymbolBomb(zw, size)
		err = errors.Join(err, zw.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, hostile.BombDebugFile, hostile.BombDebugID, "app.sym"+ext)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var bombKey = ModuleKey{DebugFile: hostile.BombDebugFile, DebugID: hostile.BombDebugID}

// TestDecompressBudgetPerFile: a bomb over the per-file bound is refused
// with ErrDecompressLimit, and its bytes are not left counted.
func TestDecompressBudgetPerFile(t *testing.T) {
	for _, ext := range []string{".gz", ".zst"} {
		dir := t.TempDir()
		p := writeBomb(t, dir, 8<<20, ext)
		if st, _ := os.Stat(p); st.Size() > 256<<10 {
			t.Fatalf("%s: bomb of %d bytes is not a bomb", ext, st.Size())
		}
		b := testBudget(1<<20, 4<<20)
		f, err := NewDirSupplier(dir).WithDecompressBudget(b).Symbols(bombKey)
		if f != nil || !errors.Is(err, ErrDecompressLimit) {
			t.Errorf("%s: got %v, %v; want ErrDecompressLimit", ext, f, err)
		}
		if b.Used() != 0 {
			t.Errorf("%s: %d bytes still counted after the failure", ext, b.Used())
		}
		// Within the bound the same file loads.
		f, err = OpenWithBudget(p, testBudget(16<<20, 16<<20))
		if err != nil || f.Module().Name != hostile.BombDebugFile {
			t.Errorf("%s: within the bound: %v", ext, err)
		}
	}
}

// TestDecompressBudgetTotal: files within the per-file bound are refused
// once the total is spent, across suppliers sharing the budget.
func TestDecompressBudgetTotal(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	writeBomb(t, dirA, 3<<20, ".gz")
	writeBomb(t, dirB, 3<<20, ".zst")
	b := testBudget(4<<20, 5<<20)
	if _, err := NewDirSupplier(dirA).WithDecompressBudget(b).Symbols(bombKey); err != nil {
		t.Fatalf("first file: %v", err)
	}
	used := b.Used()
	_, err := NewDirSupplier(dirB).WithDecompressBudget(b).Symbols(bombKey)
	if !errors.Is(err, ErrDecompressLimit) {
		t.Errorf("second file: %v, want ErrDecompressLimit", err)
	}
	if b.Used() != used {
		t.Errorf("%d bytes counted, want %d (the first file's)", b.Used(), used)
	}
}

// TestSingleFileRootReadsOneLine: matching a compressed single-file root
// against modules decompresses its first line only, not the whole file.
func TestSingleFileRootReadsOneLine(t *testing.T) {
	p := writeBomb(t, t.TempDir(), 8<<20, ".gz")
	line, err := firstLine(p, testBudget(0, 0))
	if err != nil || !bytes.HasPrefix(line, []byte("MODULE windows x86_64 "+hostile.BombDebugID)) {
		t.Fatalf("firstLine = %q, %v", line, err)
	}
	b := testBudget(1<<20, 1<<20)
	s := NewDirSupplier(p).WithDecompressBudget(b)
	for i := range 50 { // modules that do not match cost one line each
		s.Symbols(ModuleKey{DebugFile: "other.pdb", DebugID: string(rune('A' + i))})
	}
	if b.Used() != 0 {
		t.Errorf("%d bytes decompressed for non-matching modules", b.Used())
	}
}
