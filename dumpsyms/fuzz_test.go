package dumpsyms

import (
	"bytes"
	"debug/elf"
	"io"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// FuzzWrite writes the .sym of hostile ELF files, seeded with the small
// test binaries (arm-eh has .ARM.exidx, x86-eh expression CFAs, x86-df
// DWARF).
func FuzzWrite(f *testing.F) {
	for _, name := range []string{"arm-eh", "x86-eh", "arm64-eh", "x86-df"} {
		f.Add(corpus.ReadZstd(f, "../elfcfi/testdata/"+name+".zst"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ef, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		Write(io.Discard, ef, "fuzz", Options{Inlines: true, Multiple: true})
	})
}

// FuzzPostfix translates hostile DWARF expressions.
func FuzzPostfix(f *testing.F) {
	f.Add([]byte{0x75, 0x70, 0x06, 0x23, 0x38}, true)
	f.Add([]byte{0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a}, false)
	f.Fuzz(func(t *testing.T, expr []byte, withCFA bool) {
		c := &cfiConverter{names: regNames(elf.EM_X86_64), ra: 16}
		postfix(expr, c, withCFA)
	})
}

// FuzzExidxRules converts hostile EHABI opcodes.
func FuzzExidxRules(f *testing.F) {
	f.Add([]byte{0x97, 0x42, 0xa3, 0x84, 0x00, 0xb0})
	f.Add([]byte{0xb2, 0xff, 0x0e, 0xa8, 0xb0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		exidxRules(ops)
	})
}
