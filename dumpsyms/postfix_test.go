package dumpsyms

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// wordMemory is little-endian memory of 32-bit words.
type wordMemory map[uint64]uint32

func (m wordMemory) ReadMemory(addr uint64, p []byte) error {
	for i := 0; i < len(p); i += 4 {
		v, ok := m[addr+uint64(i)]
		if !ok || len(p)-i < 4 {
			return fmt.Errorf("no memory at %#x", addr+uint64(i))
		}
		binary.LittleEndian.PutUint32(p[i:], v)
	}
	return nil
}

// TestRealignedMainPostfix unwinds i386 main's stack-realigning prologue
// with the STACK CFI we write for it and the project's Breakpad postfix
// evaluator (symfile), on the frame elfcfi's TestUnwindI386RealignedMain
// builds from objdump's disassembly: at main+0x21 the caller's esp is the
// entry esp+4, its eip the return address, and ebp, edi, esi, ebx the
// values pushed. Google's dump_syms writes no rule for this (the CFA and
// the saved registers are DWARF expressions), so its .sym unwinds main
// with the epilogue's rules.
func TestRealignedMainPostfix(t *testing.T) {
	data := corpus.ReadZstd(t, "../elfcfi/testdata/x86-eh.zst")
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, f, "x86-eh", Options{}); err != nil {
		t.Fatal(err)
	}
	sym, err := symfile.NewFile(out.Bytes(), "x86-eh.sym")
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := f.Symbols()
	var main uint64
	for _, s := range syms {
		if s.Name == "main" {
			main = s.Value
		}
	}
	li := loadInfoOf(f)
	rules, ok := sym.CFIRules(main + 0x21 - li.base)
	if !ok {
		t.Fatal("no CFI rules at main+0x21")
	}
	const (
		entry   = 0x7ff0_1234
		aligned = entry &^ 31
		ret     = 0x0804_9abc
	)
	mem := wordMemory{entry: ret, aligned - 4: ret, aligned - 8: 0x1111,
		aligned - 12: 0x2222, aligned - 16: 0x3333, aligned - 20: 0x4444, aligned - 24: entry + 4}
	callee := map[string]uint64{"$esp": aligned - 24, "$ebp": aligned - 8, "$eip": main + 0x21}
	caller, err := rules.FindCallerRegs(callee, mem, 4)
	if err != nil {
		t.Fatalf("rules %+v: %v", rules, err)
	}
	want := map[string]uint64{".cfa": entry + 4, ".ra": ret, "$ebp": 0x1111, "$edi": 0x2222, "$esi": 0x3333, "$ebx": 0x4444}
	for reg, v := range want {
		if caller[reg] != v {
			t.Errorf("%s = %#x, want %#x (rules %+v)", reg, caller[reg], v, rules)
		}
	}

	// Google's records (BreakpadCompat) do not find the return address.
	out.Reset()
	if err := Write(&out, f, "x86-eh", Options{BreakpadCompat: true}); err != nil {
		t.Fatal(err)
	}
	if sym, err = symfile.NewFile(out.Bytes(), "x86-eh.sym"); err != nil {
		t.Fatal(err)
	}
	if rules, ok = sym.CFIRules(main + 0x21 - li.base); ok {
		if c, err := rules.FindCallerRegs(callee, mem, 4); err == nil && c[".ra"] == ret {
			t.Errorf("Google's rules %+v find the return address: the test shows nothing", rules)
		}
	}
}
