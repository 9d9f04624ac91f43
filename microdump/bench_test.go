package microdump

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// BenchmarkParse parses the largest corpus microdump (1218 module lines,
// six microdumps of which the first is read).
func BenchmarkParse(b *testing.B) {
	dir := corpus.Shared(b, "corpus", "breakpad", "microdumps")
	data, err := os.ReadFile(filepath.Join(dir, "microdump-withcrashreason.dmp"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
