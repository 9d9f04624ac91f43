package amd64

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// maxRealign bounds how far a realigning prologue may have moved the stack
// pointer down (its alignment, and the callee-saved registers pushed
// between the frame record and the saved DRAP register).
const maxRealign = 4096

// byDRAP recovers the caller of a frame whose function realigned its stack
// through a DRAP register (GCC's dynamic realignment on x86-64: a
// function with over-aligned locals beside a variable-sized frame, or
// built with -mstackrealign). Its prologue is `lea 8(%rsp), %r10; and
// $-N, %rsp; push -8(%r10); push %rbp; mov %rsp, %rbp; [push callee-saved
// registers;] push %r10` (r13 when r10 is taken): the frame record at rbp
// holds a copy of the return address, and a word just below it (the saved
// DRAP register) the caller's stack pointer, with the original return
// address right below that. Its CFA is a DWARF expression over the saved
// word that dump_syms cannot write: the .sym's rows say `.cfa: $r10`, and
// r10 is not known in a caller frame. The caller's stack pointer is the
// saved word whose preceding word equals the record's return address, at
// least 24 bytes above rbp (the copy and the original lie between).
// Following the frame record alone gives the right return address but the
// realigned stack pointer, and the walk then reads junk.
func byDRAP(w *walker.Walker, last *walker.Frame) *walker.Frame {
	rbp, ok := last.Context.Index(minidump.AMD64RBP)
	if !ok || rbp%8 != 0 || rbp < 64 {
		return nil
	}
	ra, ok1 := w.ReadUint64(rbp + 8)
	savedRBP, ok2 := w.ReadUint64(rbp)
	if !ok1 || !ok2 || ra < walker.MinCallerIP || w.ModuleAt(ra) == nil {
		return nil
	}
	for k := uint64(1); k <= 8; k++ {
		cfa, ok := w.ReadUint64(rbp - 8*k)
		if !ok || cfa < rbp+24 || cfa-rbp > maxRealign || cfa%8 != 0 {
			continue
		}
		if orig, ok := w.ReadUint64(cfa - 8); !ok || orig != ra {
			continue
		}
		ctx := minidump.NewContext(last.Context.Arch)
		ctx.SetIndex(minidump.AMD64RIP, ra)
		ctx.SetIndex(minidump.AMD64RSP, cfa)
		ctx.SetIndex(minidump.AMD64RBP, savedRBP)
		w.Found("frame record at rbp %#x, saved stack pointer %#x at rbp-%d with the return address %#x below it", rbp, cfa, 8*k, ra)
		return w.NewFrame(walker.Frame{Context: ctx, Trust: walker.TrustFramePointer, Rule: walker.RuleRealigned, ArchState: &state{rawRBP: savedRBP}})
	}
	w.Reject(walker.RuleRealigned, "no saved stack pointer below rbp %#x with the return address %#x below it", rbp, ra)
	return nil
}

// cannotBeCaller reports whether f, recovered for last's caller, is
// refused by the stop rule or returns into no module.
func cannotBeCaller(w *walker.Walker, f, last *walker.Frame) bool {
	ip, _ := f.Context.IP()
	sp, _ := f.Context.SP()
	lastSP, _ := last.Context.SP()
	return walker.Terminate(ip, sp, lastSP, last.Trust == walker.TrustContext) || w.ModuleAt(ip) == nil
}
