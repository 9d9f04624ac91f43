package processor

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// fakeNative serves code bytes 0xc0+offset for module-relative [0x100, 0x200).
type fakeNative struct{ asked map[string]int }

func (f *fakeNative) Native(m symfile.ModuleKey) walker.NativeModule {
	f.asked[m.CodeFile]++
	if m.CodeFile != "/bin/prog" {
		return nil
	}
	return fakeModule{}
}

type fakeModule struct{}

func (fakeModule) CFIRules(walker.NativeQuery) (symfile.CFIRules, walker.CFISource, bool) {
	return symfile.CFIRules{}, walker.CFISymbols, false
}
func (fakeModule) FunctionStart(uint64) (uint64, bool) { return 0, false }
func (fakeModule) IsCode(rel uint64) bool              { return rel >= 0x100 && rel < 0x200 }
func (fakeModule) ReadCode(rel uint64, p []byte) bool {
	if rel < 0x100 || rel+uint64(len(p)) > 0x200 {
		return false
	}
	for i := range p {
		p[i] = byte(0xc0 + rel - 0x100 + uint64(i))
	}
	return true
}

// TestCodeMemory checks the walkers' code: the dump's memory first, then
// the module's file at module-relative addresses, nothing outside
// modules; the supplier is asked once per code file.
func TestCodeMemory(t *testing.T) {
	prog := &walker.Module{Base: 0x10000, Size: 0x1000, SymbolBase: 0x10000, CodeFile: "/bin/prog"}
	other := &walker.Module{Base: 0x20000, Size: 0x1000, SymbolBase: 0x20000, CodeFile: "/lib/other.so"}
	sup := &fakeNative{asked: map[string]int{}}
	code := &codeMemory{
		dump:    &region{base: 0x10100, data: []byte{1, 2, 3, 4}},
		modules: walkertest.NewModuleMap([]*walker.Module{prog, other}),
		native:  newNativeCache(sup),
	}
	tests := []struct {
		addr uint64
		n    int
		want []byte // nil: an error
	}{
		{0x10100, 4, []byte{1, 2, 3, 4}}, // the dump's bytes win
		{0x10104, 2, []byte{0xc4, 0xc5}}, // the file's
		{0x101fe, 2, []byte{0xbe, 0xbf}}, // the file's last two (0xc0+0xfe, truncated to a byte)
		{0x101ff, 2, nil},                // past the executable bytes
		{0x20100, 1, nil},                // a module without a file
		{0x30000, 1, nil},                // no module
	}
	for _, tt := range tests {
		p := make([]byte, tt.n)
		err := code.ReadMemory(tt.addr, p)
		if tt.want == nil {
			if err == nil {
				t.Errorf("%#x: read %x, want an error", tt.addr, p)
			}
			continue
		}
		if err != nil || string(p) != string(tt.want) {
			t.Errorf("%#x: %x, %v; want %x", tt.addr, p, err, tt.want)
		}
	}
	if sup.asked["/bin/prog"] != 1 || sup.asked["/lib/other.so"] != 1 {
		t.Errorf("supplier asked %v, want once per code file", sup.asked)
	}
}
