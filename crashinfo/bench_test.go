package crashinfo

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// BenchmarkAnalyzeDump: the whole analysis of a real amd64 crash (code,
// accesses, bit flips over its Linux maps).
func BenchmarkAnalyzeDump(b *testing.B) {
	f, err := minidump.Open(corpus.Testdata(b, "dumps", "amd64-threads.dmp"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for b.Loop() {
		_ = analyzeFile(f)
	}
}
