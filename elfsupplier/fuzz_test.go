package elfsupplier

import (
	"bytes"
	"debug/elf"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// FuzzNativeModule reads arbitrary bytes as an ELF file's code and
// function starts and asks for rules and code at arbitrary addresses: no
// panic, no read past the file, typed errors.
func FuzzNativeModule(f *testing.F) {
	for _, name := range []string{"arm-eh", "arm64-eh", "x86-eh", "amd64-eh"} {
		f.Add(corpus.ReadZstd(f, "../elfcfi/testdata/"+name+".zst"), uint64(0x400), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, rel uint64, context bool) {
		ef, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		defer ef.Close()
		m, err := newModule(ef, nil, "fuzz", int64(len(data)), nil)
		if err != nil {
			if _, ok := err.(*CodeError); !ok {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		for _, r := range []uint64{rel, rel | 1, rel &^ 3} {
			m.CFIRules(walker.NativeQuery{Rel: r, Context: context})
			m.CFIRules(walker.NativeQuery{Rel: r, SymStart: r &^ 0xff, HaveStart: true})
			var p [11]byte
			m.ReadCode(r, p[:])
			m.FunctionStart(r)
		}
	})
}
