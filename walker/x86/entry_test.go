package x86_test

import (
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// A crash at a function's first instruction (push %ebp, MSVC's mov
// %edi,%edi before it, or a symbol's start) or right after the push (mov
// %esp,%ebp in either encoding): ebp is still the caller's, so following it
// would skip the caller; the return address is at esp (esp+4 after the
// push). Encodings (binutils): 55 push %ebp, 89 e5 / 8b ec mov %esp,%ebp,
// 8b ff mov %edi,%edi, e8 rel32 call, 90 nop. Breakpad mode follows ebp.
func TestCallerAtFunctionEntry(t *testing.T) {
	const (
		entry   = csMod + 0x2000 // no symbol covers it
		msvc    = csMod + 0x2100 // mov %edi,%edi; push %ebp; mov %ebp,%esp
		named   = csMod + 0x1000 // FUNC named
		caller  = csMod + 0x3040 // after `call entry`
		outer   = csMod + 0x4020 // the ebp chain's return address (the caller's caller)
		rbpAt   = csStack + 0x40
		noFrame = csStack + 0x10
	)
	code := &walkertest.Memory{Base: csMod, Data: make([]byte, 0x5000)}
	put := func(at uint32, b []byte) { copy(code.Data[at-uint32(code.Base):], b) }
	put(entry, []byte{0x55, 0x89, 0xe5})
	put(msvc, []byte{0x8b, 0xff, 0x55, 0x8b, 0xec})
	put(named, []byte{0x90})
	put(caller-7, call32(caller, entry))
	put(outer-7, call32(outer, csMod+0x5000))
	syms := "MODULE Linux x86 ID1 module1\nFUNC 1000 100 0 named\nFUNC 3000 100 0 caller\nFUNC 4000 100 0 outer\n"

	walk := func(breakpad bool, code walker.Memory, eip uint32, pushed bool) []uint64 {
		data := make([]byte, 0x100)
		sp := uint32(noFrame)
		words := []uint32{caller}
		if pushed {
			sp -= 4
			words = []uint32{rbpAt, caller}
		}
		for i, w := range words {
			binary.LittleEndian.PutUint32(data[sp-csStack+uint32(4*i):], w)
		}
		binary.LittleEndian.PutUint32(data[rbpAt-csStack:], csStack+0x80)
		binary.LittleEndian.PutUint32(data[rbpAt-csStack+4:], outer)
		return walkertest.ReturnAddresses(walkWithCode(t, breakpad, code, syms, data, uint64(eip), uint64(sp), rbpAt))
	}
	for _, tc := range []struct {
		name     string
		breakpad bool
		code     walker.Memory
		eip      uint32
		pushed   bool
		want     []uint64
	}{
		{"push %ebp in the code", false, code, entry, false, []uint64{entry, caller, outer}},
		{"after the push", false, code, entry + 1, true, []uint64{entry + 1, caller, outer}},
		{"mov %edi,%edi", false, code, msvc, false, []uint64{msvc, caller, outer}},
		{"after the push, 8b ec", false, code, msvc + 3, true, []uint64{msvc + 3, caller, outer}},
		{"a FUNC's first instruction, no code", false, nil, named, false, []uint64{named, caller, outer}},
		{"unnamed, no code", false, nil, entry, false, []uint64{entry, outer}},
		{"Breakpad mode", true, code, entry, false, []uint64{entry, outer}},
	} {
		walkertest.CheckPrefix(t, tc.name, walk(tc.breakpad, tc.code, tc.eip, tc.pushed), tc.want)
	}
}

// A scan whose first candidate (after an indirect call) is shown by the
// next word to have its own caller right above it, or followed by a return
// address into the callee's own function, is taken over a later word that
// calls the callee's function directly (the deeper call of a recursion):
// the shapes of difftest linux-x86 seed 1062 and windows-x86 seed 3097
// with code.
func TestScanPrefersLinkedCandidate(t *testing.T) {
	const (
		callee   = csMod + 0x1000
		f2       = csMod + 0x2000
		indirect = csMod + 0x2030 // in f2, after `call *%eax`
		linkF2   = csMod + 0x3020 // in f3, after `call f2`
		deeper   = csMod + 0x4020 // in f4, after `call callee`
		reentry  = callee + 0x40  // in callee, after `call *%eax`
	)
	code := &walkertest.Memory{Base: csMod, Data: make([]byte, 0x5000)}
	put := func(end uint32, b []byte) { copy(code.Data[end-uint32(len(b))-uint32(code.Base):], b) }
	put(indirect, []byte{0x90, 0x90, 0xff, 0xd0})
	put(reentry, []byte{0x90, 0x90, 0xff, 0xd0})
	put(linkF2, call32(linkF2, f2))
	put(deeper, call32(deeper, callee))
	syms := "MODULE Linux x86 ID1 module1\nFUNC 1000 100 0 callee\nFUNC 2000 100 0 f2\nFUNC 3000 100 0 f3\nFUNC 4000 100 0 f4\n"
	walk := func(words ...uint32) []uint64 {
		data := walkertest.Words32(0x100, words...)
		return walkertest.ReturnAddresses(walkWithCode(t, false, code, syms, data, callee+0x10, csStack, 0))
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

// A PUBLIC symbol covers functions the symbol file leaves out: a first
// candidate after a direct call into the callee's PUBLIC range (after its
// start, at or before the callee's instruction) is taken over a later one
// after a call to the PUBLIC's start (as walker/amd64).
func TestScanCallIntoPublic(t *testing.T) {
	const (
		pub      = csMod + 0x1000
		unnamed  = csMod + 0x1200
		ip       = csMod + 0x1210
		viaInner = csMod + 0x3020 // in f3, after `call unnamed`
		viaPub   = csMod + 0x4020 // in f4, after `call pub`
	)
	code := &walkertest.Memory{Base: csMod, Data: make([]byte, 0x5000)}
	put := func(end uint32, b []byte) { copy(code.Data[end-uint32(len(b))-uint32(code.Base):], b) }
	put(viaInner, call32(viaInner, unnamed))
	put(viaPub, call32(viaPub, pub))
	syms := "MODULE Linux x86 ID1 module1\nPUBLIC 1000 0 pub\nFUNC 3000 100 0 f3\nFUNC 4000 100 0 f4\n"
	data := make([]byte, 0x100)
	binary.LittleEndian.PutUint32(data[0:], viaInner)
	binary.LittleEndian.PutUint32(data[8:], viaPub)
	frames := walkWithCode(t, false, code, syms, data, ip, csStack, 0)
	if len(frames) < 2 || frames[1].ReturnAddress() != viaInner {
		t.Errorf("frames %x, want caller %#x", walkertest.ReturnAddresses(frames), uint64(viaInner))
	}
}

// A function whose first bytes in the dump are no push %ebp keeps no frame
// pointer: the record at ebp is its caller's. The walk takes the scan's
// word instead when its call site calls the function directly, and keeps
// the record otherwise (an unconfirmed scanned word is no better a guess).
// Encodings (binutils): 83 ec 18 sub $0x18,%esp, 55 push %ebp, ff d0
// call *%eax. Breakpad mode follows the record.
func TestFramelessByCode(t *testing.T) {
	const (
		callee    = csMod + 0x1000
		frameless = csMod + 0x2000
		caller    = csMod + 0x3000
		outer     = csMod + 0x4000
	)
	code := &walkertest.Memory{Base: csMod, Data: make([]byte, 0x5000)}
	put := func(end uint32, b []byte) { copy(code.Data[end-uint32(len(b))-uint32(code.Base):], b) }
	copy(code.Data[frameless-csMod:], []byte{0x83, 0xec, 0x18})
	copy(code.Data[caller-csMod:], []byte{0x55, 0x89, 0xe5})
	put(frameless+0x20, call32(frameless+0x20, callee))
	put(caller+0x40, call32(caller+0x40, frameless))
	put(caller+0x60, []byte{0x90, 0x90, 0xff, 0xd0})
	put(outer+0x20, call32(outer+0x20, caller))
	syms := "MODULE Linux x86 ID1 module1\nFUNC 1000 100 0 callee\nFUNC 2000 100 0 frameless\nFUNC 3000 100 0 caller\nFUNC 4000 100 0 outer\n" +
		"STACK CFI INIT 1000 100 .cfa: $esp 4 + .ra: .cfa -4 + ^\n"
	walk := func(breakpad bool, fromCaller uint32) []uint64 {
		data := make([]byte, 0x100)
		binary.LittleEndian.PutUint32(data[0x00:], frameless+0x20) // callee's return address
		binary.LittleEndian.PutUint32(data[0x0c:], fromCaller)     // frameless's
		binary.LittleEndian.PutUint32(data[0x20:], csStack+0x80)   // caller's record
		binary.LittleEndian.PutUint32(data[0x24:], outer+0x20)
		return walkertest.ReturnAddresses(walkWithCode(t, breakpad, code, syms, data, callee+0x10, csStack, csStack+0x20))
	}
	for _, tc := range []struct {
		name       string
		breakpad   bool
		fromCaller uint32
		want       []uint64
	}{
		{"confirmed call", false, caller + 0x40, []uint64{callee + 0x10, frameless + 0x20, caller + 0x40, outer + 0x20}},
		{"indirect call: the record", false, caller + 0x60, []uint64{callee + 0x10, frameless + 0x20, outer + 0x20}},
		{"Breakpad mode", true, caller + 0x40, []uint64{callee + 0x10, frameless + 0x20, outer + 0x20}},
	} {
		walkertest.CheckPrefix(t, tc.name, walk(tc.breakpad, tc.fromCaller), tc.want)
	}
}
