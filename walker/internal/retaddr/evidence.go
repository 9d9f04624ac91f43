package retaddr

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// Candidate is a possible caller frame of callee: the return address RA
// found in the stack word at Loc, and the evidence for and against it.
// Each piece of evidence is gathered when first asked for and kept, so a
// rule that reads it twice pays once.
type Candidate struct {
	Loc, RA uint64 // RA with the bits outside the scan's mask cleared

	w      *walker.Walker
	callee *walker.Frame
	a      Arch
	set    *instrSet
	mask   uint64

	call              Verdict
	symbol            string
	cfi               bool
	callDone, symDone bool
	cfiDone           bool
}

// newCandidate describes the candidate ra at loc for callee's caller;
// mask as for Scan (the word's bits, less any pointer signature).
func newCandidate(w *walker.Walker, callee *walker.Frame, a Arch, mask, loc, ra uint64) *Candidate {
	set := isaOf(callee.Context.Arch).desc()
	return &Candidate{Loc: loc, RA: ra & mask, w: w, callee: callee, a: a, set: set, mask: mask}
}

// InFunction is Breakpad's test: RA − 1 lies in a loaded module and, when
// its symbols are loaded, in a FUNC or PUBLIC symbol.
func (c *Candidate) InFunction() bool { return c.w.InstructionSeemsValid((c.RA - 1) & c.mask) }

// Call is what the dump's code says of the call before RA for callee
// (Judge; Undecided without code).
func (c *Candidate) Call() Verdict {
	if !c.callDone {
		c.call, c.callDone = Judge(c.w, c.callee, c.RA), true
	}
	return c.call
}

// SymbolObjection is why the symbols say RA is no return address, ""
// when they do not (symbolObjection).
func (c *Candidate) SymbolObjection() string {
	if !c.symDone {
		c.symbol, c.symDone = symbolObjection(c.w, c.RA, c.set.callOffset, c.mask), true
	}
	return c.symbol
}

// CFIConsistent reports whether unwinding the candidate frame one step by
// its own CFI gives a plausible caller (VerifyByCFI).
func (c *Candidate) CFIConsistent() bool {
	if !c.cfiDone {
		ctx := minidump.NewContext(c.callee.Context.Arch)
		ctx.SetIndex(c.a.PC, c.RA)
		ctx.SetIndex(c.a.SP, c.Loc+uint64(c.set.wordSize))
		c.cfi = VerifyByCFI(c.w, walker.Frame{Instruction: (c.RA - c.set.callOffset) & c.mask, Context: ctx}, c.a.CFIRegs, c.set.callOffset, c.mask)
		c.cfiDone = true
	}
	return c.cfi
}

// Checks is the evidence, beyond Breakpad's test and the call site, a
// scan requires of a candidate (Arch.decide).
type Checks uint8

// Checks.
const (
	// CheckSymbols: no symbol rules the candidate out (SymbolObjection).
	CheckSymbols Checks = 1 << iota
	// CheckCFI: the candidate frame's CFI unwinds to a plausible caller.
	CheckCFI
)

// decide is the one judgement of a candidate's evidence beyond its call
// site, which pick weighs: every check in checks must pass.
func decide(c *Candidate, checks Checks) bool {
	if checks&CheckSymbols != 0 && c.SymbolObjection() != "" {
		return false
	}
	return checks&CheckCFI == 0 || c.CFIConsistent()
}

// symbolObjection is why ra cannot be a return address by the symbols,
// beyond Breakpad's test (in a module and, with symbols, in a function),
// or "": ra is the start of a function (a function pointer, as the
// comparator qsort keeps on the stack), or only a PUBLIC name lies near,
// or (ARM) that PUBLIC's instruction set is not ra's. callOffset is how
// far before ra the call instruction lies.
func symbolObjection(w *walker.Walker, ra uint64, callOffset uint64, mask uint64) string {
	addr := ra &^ 1 & mask
	if addr < callOffset {
		return "below the first call"
	}
	at := &walker.Frame{Instruction: addr}
	w.Symbolize(at, false)
	if at.Module == nil {
		return "in no module"
	}
	if at.Function != "" && at.FunctionBase&^1 == addr {
		return "the first byte of " + at.Function
	}
	call := &walker.Frame{Instruction: (addr - callOffset) & mask}
	w.Symbolize(call, false)
	if call.Function != "" && call.IsPublic && call.Instruction-call.FunctionBase > MaxPublicOffset {
		return "too far past the PUBLIC symbol " + call.Function
	}
	// On ARM a PUBLIC symbol's address carries the Thumb bit of its
	// function, and a return address the instruction set of its caller:
	// the two must agree.
	if mask == 0xffffffff && call.Function != "" && call.IsPublic && call.FunctionBase&1 != ra&1 {
		return "in the other instruction set than the PUBLIC symbol " + call.Function
	}
	return ""
}
