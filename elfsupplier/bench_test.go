package elfsupplier

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// BenchmarkNewModule reads a program's code and function starts (entry,
// FDEs, exidx entries, symbols, call targets): the stripped amd64 and arm
// crashdemo of testdata, and the file ELFSUPPLIER_BENCH_FILE names when set
// (a system library, for scale).
func BenchmarkNewModule(b *testing.B) {
	files := map[string][]byte{}
	for _, arch := range []string{"amd64", "arm"} {
		files[arch+"-crashdemo"] = corpus.ReadZstd(b, filepath.Join(corpus.Testdata(b), "cores", arch+"-crashdemo.zst"))
	}
	if path := os.Getenv("ELFSUPPLIER_BENCH_FILE"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		files[filepath.Base(path)] = data
	}
	for name, data := range files {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				f, err := elf.NewFile(bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := newModule(f, nil, name, int64(len(data)), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
