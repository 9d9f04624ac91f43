package dumptext

import (
	"io"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// BenchmarkWrite prints the shared corpus's largest dump (1 MiB, 4 MiB of
// text). Side by side with Breakpad on one run of the CLI (2026-11-25, a
// loaded 2-core machine): minidump-stackwalk --dump 0.14-0.35 s, 20-29 MB;
// minidump_dump 0.46-0.86 s, 6 MB.
func BenchmarkWrite(b *testing.B) {
	f, err := minidump.Open(corpus.Shared(b, "corpus", "breakpad", "dumps", "stack_exhaustion.dmp"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.SetBytes(f.Size())
	for i := 0; i < b.N; i++ {
		if err := Write(io.Discard, f); err != nil {
			b.Fatal(err)
		}
	}
}
