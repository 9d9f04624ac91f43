package pesupplier

import (
	"os"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// FuzzModule reads arbitrary bytes as a PE image and asks for rules,
// code and function starts at arbitrary addresses: no panic, no hang.
func FuzzModule(f *testing.F) {
	for _, p := range []string{"../testdata/windows/x64/wincrash.exe", "../testdata/windows/arm64/unwind-fp.dll"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, uint64(0x1510), true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, rel uint64, context bool) {
		img, err := imageBytes(data)
		if err != nil {
			return
		}
		exports, _ := img.Exports()
		m, err := newModule(img, "fuzz", exports)
		if err != nil {
			return
		}
		for _, r := range []uint64{rel, rel &^ 0xfff, uint64(img.EntryPoint)} {
			m.CFIRules(walker.NativeQuery{Rel: r, Context: context})
			var p [16]byte
			m.ReadCode(r, p[:])
			m.FunctionStart(r)
			m.extent(uint32(r))
		}
		symText(symfile.ModuleKey{CodeFile: "fuzz.dll"}, img, "fuzz.dll", exports, m)
	})
}
