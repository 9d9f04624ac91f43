package dumpsyms

import (
	"bytes"
	"debug/elf"
	"io"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// BenchmarkWriteCxxDWARF writes the .sym of the amd64 C++ test program
// with INLINE records (DWARF 5: 285 functions, 2.6k inlined calls); the
// big-library comparison with Google's dump_syms is
// scripts/bench/dump-syms.sh (docs/performance.md).
func BenchmarkWriteCxxDWARF(b *testing.B) {
	data := corpus.ReadZstd(b, "testdata/amd64-cxx.zst")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if err := Write(io.Discard, f, "amd64-cxx", Options{Inlines: true, NoCFI: true}); err != nil {
			b.Fatal(err)
		}
	}
}
