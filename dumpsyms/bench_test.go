package dumpsyms

import (
	"bytes"
	"debug/elf"
	"io"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// BenchmarkWriteARM64Crashdemo writes the .sym of the static arm64
// crashdemo binary (7279 STACK CFI records from .eh_frame).
func BenchmarkWriteARM64Crashdemo(b *testing.B) {
	data := corpus.ReadZstd(b, "../testdata/cores/arm64-crashdemo.zst")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if err := Write(io.Discard, f, "arm64-crashdemo", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
