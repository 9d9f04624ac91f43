package amd64

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/internal/retaddr"
)

// Instruction bytes of a frame-pointer prologue (Intel SDM vol. 2:
// PUSH r64 is 50+rd; MOV r/m64, r64 is REX.W 89 /r, with modrm e5 for
// rsp -> rbp).
var (
	pushRBP   = []byte{0x55}
	movRBPRSP = []byte{0x48, 0x89, 0xe5}
)

// byEntry recovers the caller of the context frame when it has been
// stopped before its frame exists: at the first instruction of a function
// (the start of the FUNC or PUBLIC symbol naming it, or a push %rbp in the
// dump's code) the return address is the word at rsp; right after that
// push (a mov %rsp,%rbp in the code, the push before it, rsp holding the
// caller's rbp) it is the word above. Every other register is still the
// caller's. The frame pointer would skip the caller there (rbp is still
// the caller's), and a scan may take a stale word above the return
// address. Only where the dump's memory is given to the walker
// (walker.Env.Code, never in Breakpad's modes), and only when the word
// there could be a return address (in a module, after a call instruction
// when the dump holds the code before it).
func byEntry(w *walker.Walker, last *walker.Frame) *walker.Frame {
	if !w.HasCode() || last.Trust != walker.TrustContext {
		return nil
	}
	rip, ok1 := last.Context.IP()
	rsp, ok2 := last.Context.SP()
	if !ok1 || !ok2 {
		return nil
	}
	slot := rsp
	atSymbolStart := last.Function != "" && last.FunctionBase == rip
	switch {
	case atSymbolStart || codeIs(w, rip, pushRBP):
	case codeIs(w, rip, movRBPRSP) && codeIs(w, rip-1, pushRBP):
		rbp, ok := last.Context.Index(minidump.AMD64RBP)
		saved, ok2 := w.ReadUint64(rsp)
		if !ok || !ok2 || saved != rbp {
			return nil
		}
		slot = rsp + 8
	default:
		w.Reject(walker.RulePrologue, "%#x is neither a function's first instruction nor after its push of the frame pointer", rip)
		return nil
	}
	ra, ok := w.ReadUint64(slot)
	if !ok || ra == 0 || !w.InstructionSeemsValid(ra-1) || retaddr.Judge(w, last, ra) == retaddr.NoCall {
		return nil
	}
	ctx := last.Context
	ctx.SetIndex(minidump.AMD64RIP, ra)
	ctx.SetIndex(minidump.AMD64RSP, slot+8)
	w.Found("at %#x the return address is still at %#x: %#x", rip, slot, ra)
	return w.NewFrame(walker.Frame{Context: ctx, Trust: walker.TrustLeaf, Rule: walker.RulePrologue, ArchState: &state{rawRBP: rawRBP(last)}})
}

// codeIs reports whether the dump's code at addr starts with want.
func codeIs(w *walker.Walker, addr uint64, want []byte) bool { return w.CodeIs(addr, want) }

// framelessByCode reports whether the dump's code shows that f's function
// keeps no frame pointer: a FUNC symbol names it and its first bytes are
// in the dump but are no push %rbp (nor an endbr64 before one). The frame
// record at rbp is then a caller's, and following it would skip f's
// caller: the walk scans instead. Only where the walker has the dump's
// memory (never in Breakpad's modes).
func framelessByCode(w *walker.Walker, f *walker.Frame) bool {
	if !w.HasCode() || f.Function == "" || f.IsPublic || f.Trust == walker.TrustContext {
		return false
	}
	var code [5]byte
	b := code[:]
	if !w.ReadCode(f.FunctionBase, b) {
		return false
	}
	if string(b[:4]) == "\xf3\x0f\x1e\xfa" { // endbr64
		return b[4] != pushRBP[0]
	}
	return b[0] != pushRBP[0]
}

// keepsFramePointerByCode reports whether the dump's code shows that f's
// function builds a standard frame record: a FUNC symbol names it, its
// first bytes are push %rbp; mov %rsp,%rbp (after an endbr64 or not), and
// f's instruction lies past them. rbp then points at its record, whose
// return address is its caller's, on Windows too, where the walk does not
// otherwise follow frame pointers (MSVC's frames put rbp elsewhere, and
// do not start this way). Only where the walker has the dump's memory,
// and only with an rbp known for f at or above its stack pointer.
func keepsFramePointerByCode(w *walker.Walker, f *walker.Frame) bool {
	if !w.HasCode() || f.Function == "" || f.IsPublic {
		return false
	}
	// The record must be this frame's: rbp known for it (not a value a
	// scan carried over) and at or above its stack pointer.
	rbp, ok1 := f.Context.Index(minidump.AMD64RBP)
	rsp, ok2 := f.Context.SP()
	if !ok1 || !ok2 || rbp < rsp {
		return false
	}
	var code [8]byte
	b := code[:]
	if !w.ReadCode(f.FunctionBase, b) {
		return false
	}
	k := len(pushRBP)
	n := k + len(movRBPRSP)
	if string(b[:4]) == "\xf3\x0f\x1e\xfa" { // endbr64
		n += 4
		b = b[4:]
	}
	return string(b[:k]) == string(pushRBP) && string(b[k:k+len(movRBPRSP)]) == string(movRBPRSP) && f.Instruction >= f.FunctionBase+uint64(n)
}
