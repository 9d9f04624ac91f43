package symfile

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fuzzbudget"
)

// FuzzDecompress opens fuzzed .sym.gz and .sym.zst files under a small
// DecompressBudget: no panic, the budget holds, and each input keeps to
// the fuzz budget.
func FuzzDecompress(f *testing.F) {
	var gz, zs bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(fuzzSeedSym))
	zw.Close()
	ze, _ := zstd.NewWriter(&zs)
	ze.Write([]byte(fuzzSeedSym))
	ze.Close()
	f.Add(false, gz.Bytes())
	f.Add(true, zs.Bytes())
	f.Fuzz(func(t *testing.T, isZstd bool, data []byte) {
		fuzzbudget.Default.Run(t, func() {
			name := "fuzz.sym.gz"
			if isZstd {
				name = "fuzz.sym.zst"
			}
			p := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			const perFile, total = 1 << 20, 3 << 19
			b := testBudget(perFile, total)
			file, _ := OpenWithBudget(p, b)
			if b.Used() > perFile+1 {
				t.Fatalf("%d bytes counted, budget %d per file", b.Used(), perFile)
			}
			if file != nil {
				file.Lookup(0x1000)
				if file.Size() > perFile {
					t.Fatalf("%d bytes decompressed, budget %d", file.Size(), perFile)
				}
				file.Close()
			}
		})
	})
}

const fuzzSeedSym = "MODULE Linux x86_64 ID app\nFILE 0 a.c\nFUNC 1000 10 0 f\n1000 10 1 0\nPUBLIC 2000 0 p\n"
