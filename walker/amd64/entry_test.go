package amd64_test

import (
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// A crash at a function's first instruction (or between its push %rbp and
// mov %rsp,%rbp): rbp is still the caller's, so the frame-pointer chain
// would skip the caller; the return address is at rsp (rsp+8 after the
// push). Encodings (binutils): 55 push %rbp, 48 89 e5 mov %rsp,%rbp,
// e8 rel32 call, 90 nop.
func TestCallerAtFunctionEntry(t *testing.T) {
	const (
		stack  = codeStack
		entry  = mod1Base + 0x2000 // no symbol covers it: an unnamed function
		named  = mod1Base + 0x1000 // FUNC named
		caller = mod1Base + 0x3040 // after `call entry`
		outer  = mod1Base + 0x4020 // the frame-pointer chain's return address (the caller's caller)
	)
	code := &walkertest.Memory{Base: mod1Base, Data: make([]byte, 0x5000)}
	put := func(at uint64, b []byte) { copy(code.Data[at-code.Base:], b) }
	put(entry, []byte{0x55, 0x48, 0x89, 0xe5})
	put(named, []byte{0x90})
	callRel32(code, caller, entry)
	put(outer-7, []byte{0x90, 0x90, 0xe8})
	syms := "MODULE Linux x86_64 ID1 module1\nFUNC 1000 100 0 named\nFUNC 3000 100 0 caller\nFUNC 4000 100 0 outer\n"

	// stack: [rsp] = saved rbp or return address, then the caller's frame
	// record at rbpAt.
	const rbpAt = stack + 0x40
	walk := func(code walker.Memory, rip uint64, pushed bool) []uint64 {
		data := make([]byte, 0x100)
		words := []uint64{caller}
		sp := uint64(stack + 0x10)
		if pushed {
			words = []uint64{rbpAt, caller}
			sp -= 8
		}
		for i, w := range words {
			binary.LittleEndian.PutUint64(data[sp-stack+uint64(8*i):], w)
		}
		binary.LittleEndian.PutUint64(data[rbpAt-stack:], stack+0x80) // the caller's caller's rbp
		binary.LittleEndian.PutUint64(data[rbpAt-stack+8:], outer)
		return walkertest.ReturnAddresses(walkWithCode(t, "linux", code, syms, data, rip, sp, rbpAt))
	}
	for _, tc := range []struct {
		name   string
		code   walker.Memory
		rip    uint64
		pushed bool
		want   []uint64
	}{
		{"push %rbp in the code", code, entry, false, []uint64{entry, caller, outer}},
		{"after the push", code, entry + 1, true, []uint64{entry + 1, caller, outer}},
		{"a FUNC's first instruction", code, named, false, []uint64{named, caller, outer}},
		// Breakpad's modes give the walker no code (walker.Env.Code):
		// the frame pointer, as Breakpad.
		{"no code", nil, entry, false, []uint64{entry, outer}},
	} {
		walkertest.CheckPrefix(t, tc.name, walk(tc.code, tc.rip, tc.pushed), tc.want)
	}
}

// A scan from a frame whose function the stack holds again deeper: the
// first candidate follows an indirect call, the next word's call site calls
// that candidate's function directly (or returns into the callee's own
// function), and a later word calls the callee's function directly (the
// deeper call). The first is taken; without a word between them the
// confirmed one is.
func TestScanPrefersLinkedCandidate(t *testing.T) {
	const (
		stack    = codeStack
		callee   = mod1Base + 0x1000
		indirect = mod1Base + 0x2030 // in f2, after `call *%r8`
		linkF2   = mod1Base + 0x3020 // in f3, after `call f2`
		deeper   = mod1Base + 0x4020 // in f4, after `call callee`
		f2       = mod1Base + 0x2000
		reentry  = callee + 0x40 // in callee, after `call *%r8`
	)
	code := &walkertest.Memory{Base: mod1Base, Data: make([]byte, 0x5000)}
	copy(code.Data[indirect-5-code.Base:], []byte{0x90, 0x90, 0x41, 0xff, 0xd0})
	copy(code.Data[reentry-5-code.Base:], []byte{0x90, 0x90, 0x41, 0xff, 0xd0})
	callRel32(code, linkF2, f2)
	callRel32(code, deeper, callee)
	syms := "MODULE Linux x86_64 ID1 module1\nFUNC 1000 100 0 callee\nFUNC 2000 100 0 f2\nFUNC 3000 100 0 f3\nFUNC 4000 100 0 f4\n"
	walk := func(words ...uint64) []uint64 {
		data := walkertest.Words64(0x200, words...)
		return walkertest.ReturnAddresses(walkWithCode(t, "linux", code, syms, data, callee+0x10, stack, 0))
	}
	if got := walk(indirect, linkF2, deeper); len(got) < 2 || got[1] != indirect {
		t.Errorf("linked: frames %x, want caller %#x", got, uint64(indirect))
	}
	if got := walk(indirect, 0, deeper); len(got) < 2 || got[1] != deeper {
		t.Errorf("unlinked: frames %x, want caller %#x (confirmed)", got, uint64(deeper))
	}
	// A return address into callee's own function between them: callee
	// is active again deeper, and the confirmed word is that call's.
	if got := walk(indirect, reentry, deeper); len(got) < 2 || got[1] != indirect {
		t.Errorf("reentered: frames %x, want caller %#x", got, uint64(indirect))
	}
}

// callRel32 writes nop, nop, call target (e8 rel32) ending at end.
func callRel32(code *walkertest.Memory, end, target uint64) {
	copy(code.Data[end-code.Base-7:], call64(end, target))
}

// A PUBLIC symbol covers functions the symbol file leaves out: the callee
// named by PUBLIC pub (0x1000) really lies in an unnamed function at
// 0x1200. A first candidate after a direct call to 0x1200 (after pub's
// start, before the callee's instruction) is taken over a later one after
// a call to pub's start, which called pub itself. (The shape of difftest
// linux-amd64 seed 1124 with code.)
func TestScanCallIntoPublic(t *testing.T) {
	const (
		stack    = codeStack
		pub      = mod1Base + 0x1000
		unnamed  = mod1Base + 0x1200
		ip       = mod1Base + 0x1210
		viaInner = mod1Base + 0x3020 // in f3, after `call unnamed`
		viaPub   = mod1Base + 0x4020 // in f4, after `call pub`
	)
	code := &walkertest.Memory{Base: mod1Base, Data: make([]byte, 0x5000)}
	callRel32(code, viaInner, unnamed)
	callRel32(code, viaPub, pub)
	syms := "MODULE Linux x86_64 ID1 module1\nPUBLIC 1000 0 pub\nFUNC 3000 100 0 f3\nFUNC 4000 100 0 f4\n"
	data := make([]byte, 0x200)
	binary.LittleEndian.PutUint64(data[0:], viaInner)
	binary.LittleEndian.PutUint64(data[16:], viaPub)
	frames := walkWithCode(t, "linux", code, syms, data, ip, stack, 0)
	if len(frames) < 2 || frames[1].ReturnAddress() != viaInner {
		t.Errorf("frames %x, want caller %#x", walkertest.ReturnAddresses(frames), uint64(viaInner))
	}
}

// A function whose first bytes in the dump are no push %rbp keeps no frame
// pointer: the record at rbp is its caller's, and following it would skip
// the caller, so the walk scans (finding the call to the frameless
// function). Encodings (binutils): 48 83 ec 18 sub $0x18,%rsp, 55 push
// %rbp. Breakpad's modes (no code) follow the record.
func TestFramelessByCode(t *testing.T) {
	const (
		stack     = codeStack
		callee    = mod1Base + 0x1000
		frameless = mod1Base + 0x2000
		caller    = mod1Base + 0x3000
		outer     = mod1Base + 0x4000
	)
	code := &walkertest.Memory{Base: mod1Base, Data: make([]byte, 0x5000)}
	copy(code.Data[frameless-code.Base:], []byte{0x48, 0x83, 0xec, 0x18})
	copy(code.Data[caller-code.Base:], []byte{0x55, 0x48, 0x89, 0xe5})
	callRel32(code, frameless+0x20, callee)
	callRel32(code, caller+0x40, frameless)
	callRel32(code, outer+0x20, caller)
	syms := "MODULE Linux x86_64 ID1 module1\nFUNC 1000 100 0 callee\nFUNC 2000 100 0 frameless\nFUNC 3000 100 0 caller\nFUNC 4000 100 0 outer\n" +
		"STACK CFI INIT 1000 100 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"
	data := make([]byte, 0x100)
	binary.LittleEndian.PutUint64(data[0x00:], frameless+0x20) // callee's return address
	binary.LittleEndian.PutUint64(data[0x18:], caller+0x40)    // frameless's
	binary.LittleEndian.PutUint64(data[0x40:], stack+0x80)     // caller's record
	binary.LittleEndian.PutUint64(data[0x48:], outer+0x20)
	walk := func(code walker.Memory) []uint64 {
		return walkertest.ReturnAddresses(walkWithCode(t, "linux", code, syms, data, callee+0x10, stack, stack+0x40))
	}
	for _, tc := range []struct {
		name string
		code walker.Memory
		want []uint64
	}{
		{"code", code, []uint64{callee + 0x10, frameless + 0x20, caller + 0x40, outer + 0x20}},
		{"no code", nil, []uint64{callee + 0x10, frameless + 0x20, outer + 0x20}},
	} {
		walkertest.CheckPrefix(t, tc.name, walk(tc.code), tc.want)
	}
}

// On Windows the walk follows no frame pointer, but a function whose code
// starts with push %rbp; mov %rsp,%rbp keeps its record at rbp: its
// caller's return address there wins over a scan, which would take a stale
// word after an earlier call to the same function.
func TestWindowsFramePointerByCode(t *testing.T) {
	const (
		stack  = codeStack
		fpfunc = mod1Base + 0x1000
		stale  = mod1Base + 0x2020 // in f2, after `call fpfunc`
		caller = mod1Base + 0x3040 // in f3, after `call *%r8`
	)
	code := fpfuncCode(fpfunc, stale, caller)
	syms := "MODULE windows x86_64 ID1 module1\nFUNC 1000 100 0 fpfunc\nFUNC 2000 100 0 f2\nFUNC 3000 100 0 f3\n"
	data := make([]byte, 0x100)
	binary.LittleEndian.PutUint64(data[0x10:], stale)
	binary.LittleEndian.PutUint64(data[0x20:], stack+0x80) // fpfunc's record
	binary.LittleEndian.PutUint64(data[0x28:], caller)
	walk := func(code walker.Memory) []uint64 {
		return walkertest.ReturnAddresses(walkWithCode(t, "windows", code, syms, data, fpfunc+0x10, stack, stack+0x20))
	}
	if got := walk(code); len(got) < 2 || got[1] != caller {
		t.Errorf("code: frames %x, want caller %#x from the record", got, uint64(caller))
	}
	if got := walk(nil); len(got) < 2 || got[1] != stale {
		t.Errorf("no code: frames %x, want Breakpad's scanned %#x", got, uint64(stale))
	}
}

// A record the code proves to be the frame's own holds the caller's
// return address whatever the saved rbp is (0 here: the caller keeps no
// frame pointer); Breakpad's frame-pointer step rejects it and scans.
func TestProvenRecordWithoutChain(t *testing.T) {
	const (
		stack  = codeStack
		fpfunc = mod1Base + 0x1000
		stale  = mod1Base + 0x2020 // in f2, after `call fpfunc`
		caller = mod1Base + 0x3040 // in f3, after `call *%r8`
	)
	code := fpfuncCode(fpfunc, stale, caller)
	syms := "MODULE Linux x86_64 ID1 module1\nFUNC 1000 100 0 fpfunc\nFUNC 2000 100 0 f2\nFUNC 3000 100 0 f3\n"
	data := make([]byte, 0x100)
	binary.LittleEndian.PutUint64(data[0x10:], stale)
	binary.LittleEndian.PutUint64(data[0x28:], caller) // fpfunc's record at 0x20: saved rbp 0
	for _, os := range []string{"linux", "windows"} {
		frames := walkWithCode(t, os, code, syms, data, fpfunc+0x10, stack, stack+0x20)
		if len(frames) < 2 || frames[1].ReturnAddress() != caller || frames[1].Trust != walker.TrustFramePointer {
			t.Errorf("%s: frames %x, want caller %#x from the record", os, walkertest.ReturnAddresses(frames), uint64(caller))
		}
	}
}

// fpfuncCode is module1's code for a function at fpfunc that begins with
// push %rbp; mov %rsp,%rbp, a direct call to it returning at stale and an
// indirect call (call *%r8) returning at caller.
func fpfuncCode(fpfunc, stale, caller uint64) *walkertest.Memory {
	code := &walkertest.Memory{Base: mod1Base, Data: make([]byte, 0x5000)}
	copy(code.Data[fpfunc-code.Base:], []byte{0x55, 0x48, 0x89, 0xe5})
	callRel32(code, stale, fpfunc)
	copy(code.Data[caller-5-code.Base:], []byte{0x90, 0x90, 0x41, 0xff, 0xd0})
	return code
}
