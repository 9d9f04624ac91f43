package x86_test

import (
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/x86"
)

// Scans choose among the stack's candidates by the code before them when
// the dump holds it. The encodings are the IA-32 ones of
// walker/internal/retaddr's table (binutils): e8 rel32 is `call rel32`,
// ff d0 `call *%eax`, c3 `ret`, 90 `nop`.
const (
	csMod   = 0x08040000
	csStack = 0x80000000
)

func call32(at, target uint32) []byte { // e8 rel32 ending at at
	return binary.LittleEndian.AppendUint32([]byte{0x90, 0x90, 0xe8}, target-at)
}

func TestScanByCallSite(t *testing.T) {
	const (
		callee = csMod + 0x1000
		stale  = csMod + 0x2010 // after `ret`: no call
		other  = csMod + 0x4000
		viaB   = csMod + 0x3020 // after `call other`
		viaC   = csMod + 0x3040 // after `call callee`
		viaD   = csMod + 0x3060 // after `call *%eax`
	)
	code := &walkertest.Memory{Base: csMod + 0x2000, Data: make([]byte, 0x1100)}
	put := func(end uint32, b []byte) { copy(code.Data[end-uint32(len(b))-uint32(code.Base):], b) }
	put(stale, []byte{0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xc3})
	put(viaB, call32(viaB, other))
	put(viaC, call32(viaC, callee))
	put(viaD, []byte{0x90, 0x90, 0x90, 0x90, 0x90, 0xff, 0xd0})
	syms := "MODULE Linux x86 ID1 module1\nFUNC 1000 100 0 callee\nFUNC 2000 100 0 stale\nFUNC 3000 100 0 caller\nFUNC 4000 100 0 other\n"

	walk := func(breakpad bool, code walker.Memory, words ...uint32) []uint64 {
		data := walkertest.Words32(0x100, words...)
		return walkertest.ReturnAddresses(walkWithCode(t, breakpad, code, syms, data, callee+0x10, csStack, 0)) // no frame pointer: scan
	}
	for _, tc := range []struct {
		name     string
		breakpad bool
		code     walker.Memory
		stack    []uint32
		caller   uint64
	}{
		{"confirmed over stale and contradicted", false, code, []uint32{stale, viaB, viaC}, viaC},
		{"tail call keeps the first call", false, code, []uint32{stale, viaB}, viaB},
		{"confirmed over indirect", false, code, []uint32{stale, viaD, viaC}, viaC},
		{"indirect", false, code, []uint32{stale, viaD}, viaD},
		{"no code", false, nil, []uint32{stale, viaB, viaC}, stale},
		{"Breakpad mode ignores code", true, code, []uint32{stale, viaB, viaC}, stale},
	} {
		pcs := walk(tc.breakpad, tc.code, tc.stack...)
		if len(pcs) < 2 || pcs[1] != tc.caller {
			t.Errorf("%s: frames %x, want caller %#x", tc.name, pcs, tc.caller)
		}
	}
	words := []uint32{stale, viaB, viaC, viaD}
	if none, elsewhere := walk(false, nil, words...), walk(false, &walkertest.Memory{Base: csMod + 0x9000, Data: make([]byte, 16)}, words...); len(none) != 5 || len(elsewhere) != 5 {
		t.Errorf("without code %x, with code elsewhere %x: want every word, as Breakpad", none, elsewhere)
	}
}

// walkWithCode walks from eip, esp and ebp on Linux (in Breakpad mode if
// breakpad), with data as the stack memory at csStack, code as the code
// memory (nil: none) and syms as the symbol file of module1 at csMod.
func walkWithCode(t *testing.T, breakpad bool, code walker.Memory, syms string, data []byte, eip, esp, ebp uint64) []*walker.Frame {
	t.Helper()
	ctx := minidump.NewContext(minidump.ArchX86)
	ctx.SetIndex(minidump.X86EIP, eip)
	ctx.SetIndex(minidump.X86ESP, esp)
	ctx.SetIndex(minidump.X86EBP, ebp)
	env := &walker.Env{
		OS: "linux", Memory: &walkertest.Memory{Base: csStack, Data: data}, Code: code,
		Modules: walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "module1", csMod, 0x10000)}),
		Symbols: walkertest.NewSymbols(t, map[string]string{"module1": syms}),
	}
	env.Mode = walkertest.Mode(breakpad)
	return walker.Walk(env, x86.New(), ctx).Frames
}

// TestScanPastWindow: the caller of a scanned frame keeps its return
// address 45 words up, past a scanned frame's 40-word window (a large frame
// without CFI). A word there after a direct call to the scanned frame's
// function is taken; after a call to another function, or without code, no.
func TestScanPastWindow(t *testing.T) {
	const (
		callee = csMod + 0x1000
		viaD   = csMod + 0x3060 // in caller, after `call *%eax`
		viaE   = csMod + 0x2040 // in stale, after `call caller`
		viaF   = csMod + 0x2060 // in stale, after `call other`
	)
	code := &walkertest.Memory{Base: csMod + 0x2000, Data: make([]byte, 0x1100)}
	put := func(end uint32, b []byte) { copy(code.Data[end-uint32(len(b))-uint32(code.Base):], b) }
	put(viaD, []byte{0x90, 0x90, 0x90, 0x90, 0x90, 0xff, 0xd0})
	put(viaE, call32(viaE, csMod+0x3000))
	put(viaF, call32(viaF, csMod+0x4000))
	syms := "MODULE Linux x86 ID1 module1\nFUNC 1000 100 0 callee\nFUNC 2000 100 0 stale\nFUNC 3000 100 0 caller\nFUNC 4000 100 0 other\n"
	walk := func(code walker.Memory, far uint32) []uint64 {
		words := make([]uint32, 47)
		words[0], words[46] = viaD, far
		data := walkertest.Words32(0x200, words...)
		return walkertest.ReturnAddresses(walkWithCode(t, false, code, syms, data, callee+0x10, csStack, 0))
	}
	if pcs := walk(code, viaE); len(pcs) < 3 || pcs[1] != viaD || pcs[2] != viaE {
		t.Errorf("confirmed past the window: frames %x, want %#x then %#x", pcs, viaD, viaE)
	}
	if pcs := walk(code, viaF); len(pcs) != 2 {
		t.Errorf("a call to another function past the window: frames %x, want 2", pcs)
	}
	if pcs := walk(nil, viaE); len(pcs) != 2 {
		t.Errorf("without code: frames %x, want 2", pcs)
	}
}
