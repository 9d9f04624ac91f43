package amd64_test

import (
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/amd64"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// Scans choose among the stack's candidates by the code before them when
// the dump holds it. The encodings are the x86-64 ones of
// walker/internal/retaddr's table (binutils): e8 rel32 is `call rel32`,
// 41 ff d0 `call *%r8`, c3 `ret`, 90 `nop`.
func call64(at, target uint64) []byte { // e8 rel32 ending at at
	return binary.LittleEndian.AppendUint32([]byte{0x90, 0x90, 0xe8}, uint32(target-at))
}

func TestScanByCallSite(t *testing.T) {
	const (
		stack  = codeStack
		callee = mod1Base + 0x1000
		stale  = mod1Base + 0x2010 // after `ret`: no call
		other  = mod1Base + 0x4000
		viaB   = mod1Base + 0x3020 // after `call other`
		viaC   = mod1Base + 0x3040 // after `call callee`
		viaD   = mod1Base + 0x3060 // after `call *%r8`
	)
	code := &walkertest.Memory{Base: mod1Base + 0x2000, Data: make([]byte, 0x1100)}
	put := func(end uint64, b []byte) { copy(code.Data[end-uint64(len(b))-code.Base:], b) }
	put(stale, []byte{0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xc3})
	put(viaB, call64(viaB, other))
	put(viaC, call64(viaC, callee))
	put(viaD, []byte{0x90, 0x90, 0x90, 0x90, 0x41, 0xff, 0xd0})
	syms := "MODULE Linux x86_64 ID1 module1\nFUNC 1000 100 0 callee\nFUNC 2000 100 0 stale\nFUNC 3000 100 0 caller\nFUNC 4000 100 0 other\n"

	walk := func(code walker.Memory, words ...uint64) []uint64 {
		data := walkertest.Words64(0x200, words...)
		return walkertest.ReturnAddresses(walkWithCode(t, "linux", code, syms, data, callee+0x10, stack, 0)) // rbp 0: no frame pointer, scan
	}
	for _, tc := range []struct {
		name   string
		code   walker.Memory
		stack  []uint64
		caller uint64
	}{
		{"confirmed over stale and contradicted", code, []uint64{stale, viaB, viaC}, viaC},
		{"tail call keeps the first call", code, []uint64{stale, viaB}, viaB},
		{"confirmed over indirect", code, []uint64{stale, viaD, viaC}, viaC},
		{"indirect", code, []uint64{stale, viaD}, viaD},
		{"no code", nil, []uint64{stale, viaB, viaC}, stale},
	} {
		pcs := walk(tc.code, tc.stack...)
		if len(pcs) < 2 || pcs[1] != tc.caller {
			t.Errorf("%s: frames %x, want caller %#x", tc.name, pcs, tc.caller)
		}
	}
	words := []uint64{stale, viaB, viaC, viaD}
	if none, elsewhere := walk(nil, words...), walk(&walkertest.Memory{Base: mod1Base + 0x9000, Data: make([]byte, 16)}, words...); len(none) != 5 || len(elsewhere) != 5 {
		t.Errorf("without code %x, with code elsewhere %x: want every word, as Breakpad", none, elsewhere)
	}
}

// codeStack is where the stack memory of walkWithCode starts.
const codeStack = 0x00007fff00000000

// walkWithCode walks from rip, rsp and rbp on os, with data as the stack
// memory at codeStack, code as the code memory (nil: none) and syms as
// module1's symbol file.
func walkWithCode(t *testing.T, os string, code walker.Memory, syms string, data []byte, rip, rsp, rbp uint64) []*walker.Frame {
	t.Helper()
	ctx := minidump.NewContext(minidump.ArchAMD64)
	ctx.SetIndex(minidump.AMD64RIP, rip)
	ctx.SetIndex(minidump.AMD64RSP, rsp)
	ctx.SetIndex(minidump.AMD64RBP, rbp)
	env := &walker.Env{
		OS: os, Memory: &walkertest.Memory{Base: codeStack, Data: data}, Code: code,
		Modules: walkertest.NewModuleMap(modules()),
		Symbols: walkertest.NewSymbols(t, map[string]string{"module1": syms}),
	}
	return walker.Walk(env, amd64.New(), ctx).Frames
}
