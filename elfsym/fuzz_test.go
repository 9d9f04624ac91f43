package elfsym

import (
	"bytes"
	"debug/elf"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// FuzzTable reads hostile ELF files (seeded with the test files, whose
// .gnu_debugdata is an xz stream) into a symbol table (MiniDebugInfo) and a
// DebugInfo (internal/dwarfsyms).
func FuzzTable(f *testing.F) {
	for _, name := range []string{"prog-mini", "prog"} {
		f.Add(corpus.ReadZstd(f, "testdata/"+name+".zst"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ef, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		if di, err := NewDebugInfo(ef); err == nil {
			di.Lookup(0x1070)
		}
		tab, err := NewTable(ef)
		if err != nil {
			return
		}
		tab.Lookup(0x1234)
	})
}
