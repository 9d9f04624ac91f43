package retaddr

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// MaxPublicOffset bounds the distance of a return address from the PUBLIC
// symbol that names it. A PUBLIC record has no size, so every address up to
// the next symbol, including data after the last function (static binaries'
// "_fini + 0x1f87a"), would otherwise seem to be code.
const MaxPublicOffset = 0x10000

// ScanRule names the rule by which a scan chose ra as callee's return
// address: Breakpad's scan (the first word that points into a function),
// a word whose call site calls callee's function, one that passed the
// extended scan's symbol and CFI checks (checked), or one whose call site
// does not rule it out. Breakpad's scan rules pass checked false, and
// the dump's code is never read in Breakpad's mode (walker.HasCode).
func ScanRule(w *walker.Walker, callee *walker.Frame, ra uint64, checked bool) walker.Rule {
	switch {
	case !checked && !w.HasCode():
		return walker.RuleScan
	case w.HasCode() && Judge(w, callee, ra) == Confirmed:
		return walker.RuleScanCallSite
	case checked:
		return walker.RuleScanChecked
	}
	return walker.RuleScanAfterCall
}

// wideScanWords is the window of a scan from a trustworthy frame: four
// times Breakpad's default, as Breakpad's own scan from the context frame.
const wideScanWords = walker.RASearchWords * 4

// ScanWords is the one scan window, in words, from frame f: Breakpad's
// (wideScanWords from the context frame, RASearchWords from any other)
// and, outside Breakpad's mode on an instruction set that widens it
// (instrSet.wideFromCFI: ARM, arm64), the wide window from a frame
// recovered by CFI as well, as rust-minidump does: a trustworthy frame may
// well sit under a large one (glibc's __libc_start_call_main keeps a
// jmp_buf of some 300 bytes). It asks the mode itself: the window
// bounds the frame-pointer and leaf rules' searches as well as the scan.
func ScanWords(w *walker.Walker, f *walker.Frame) int {
	switch {
	case f.Trust == walker.TrustContext:
		return wideScanWords
	case f.Trust == walker.TrustCFI && !w.Breakpad() && isaOf(f.Context.Arch).desc().wideFromCFI:
		return wideScanWords
	}
	return walker.RASearchWords
}

// SameFunction reports whether a and b lie in one function of one module's
// symbol file (false when unknown).
func SameFunction(w *walker.Walker, a, b uint64) bool {
	fa := &walker.Frame{Instruction: a}
	fb := &walker.Frame{Instruction: b}
	w.Symbolize(fa, false)
	w.Symbolize(fb, false)
	return fa.Module != nil && fa.Module == fb.Module && fa.Function != "" &&
		fa.Function == fb.Function && fa.FunctionBase == fb.FunctionBase
}

// FunctionKnown reports whether a symbol names the function at addr.
func FunctionKnown(w *walker.Walker, addr uint64) bool {
	f := &walker.Frame{Instruction: addr}
	w.Symbolize(f, false)
	return f.Function != ""
}

// confirmedBelow reports whether a stack word from start up to end is a
// scan candidate whose call site is confirmed for callee (Judge: a direct
// call to the start of callee's function). False without code in the dump.
func confirmedBelow(w *walker.Walker, callee *walker.Frame, start, end, mask uint64, a Arch) bool {
	if !w.HasCode() || callee == nil || callee.Function == "" {
		return false
	}
	return wordBelow(w, callee, start, end, mask, a, func(c *Candidate) bool { return c.Call() == Confirmed })
}

// ReturnRejected is the call-site rule for a return address that the
// code's own conventions put in LR or a frame record (ra as for
// CallSiteContradicts): it is rejected when no call instruction precedes
// it, and when it follows a direct call to another known function only if
// a stack word from start up to end (callee's stack below the record) is a
// confirmed return address for callee (confirmedBelow), or returns into
// the function that call targets (ownerReturnBelow). A tail call leaves a
// real return address after a call to another function, usually with
// neither below it; a frameless callee under its caller's record has
// pushed its own return address there, into the record's owner, and
// confirmed when the call was direct.
func ReturnRejected(w *walker.Walker, callee *walker.Frame, ra, start, end, mask uint64, a Arch) bool {
	if a.WordSize == 4 {
		ra &= 0xffffffff
	}
	c := NewCandidate(w, callee, a, ^uint64(0), 0, ra)
	switch c.Call() {
	case NoCall:
		return true
	case Contradicted:
		return confirmedBelow(w, callee, start, end, mask, a) ||
			ownerReturnBelow(w, callee, c.set.callSite(w, c.RA).Target, start, end, mask, a)
	}
	return false
}

// ownerReturnBelow reports whether a stack word from start up to end
// passes the scan's checks, follows a call (or bytes the dump lacks), and
// returns into the function that starts at target: the function whose call
// the record's return address follows owns the record, and when a return
// address into it lies below the record, it called the current function,
// which keeps no record of its own there.
func ownerReturnBelow(w *walker.Walker, callee *walker.Frame, target, start, end, mask uint64, a Arch) bool {
	if a.WordSize == 4 {
		mask &= 0xffffffff
	}
	owner := &walker.Frame{Instruction: target}
	w.Symbolize(owner, false)
	if a.WordSize == 4 && (owner.Function == "" || owner.FunctionBase&^1 != target) {
		owner = &walker.Frame{Instruction: target | 1}
		w.Symbolize(owner, false)
	}
	if owner.Function == "" || owner.FunctionBase&^1 != target {
		return false
	}
	return wordBelow(w, callee, start, end, mask, a, func(c *Candidate) bool {
		v := c.RA
		at := &walker.Frame{Instruction: (v&^1 - a.CallOffset) & mask}
		if a.WordSize == 8 {
			at.Instruction = (v - a.CallOffset) & mask
		}
		w.Symbolize(at, false)
		return at.Module == owner.Module && at.Function == owner.Function && at.FunctionBase == owner.FunctionBase &&
			c.Call() != NoCall
	})
}

// FramelessLeaf decides, for a context frame last without CFI that is not
// at its function's entry, between the word at sp and the frame record at
// fp: a frameless function (a leaf built with frame pointers elsewhere, a
// syscall wrapper, hand-written assembly) leaves the frame-pointer register
// holding its caller's record, and following it skips the caller. The word
// at sp is taken as the return address when it could be one (it points
// into a function other than last's, a call precedes it) and the dump's
// code shows either that a direct call to last's function precedes it, or
// that the record's return address follows a direct call to the function
// it returns into (the record is that function's, the next frame's). A
// record whose return address follows a direct call to last's function is
// last's own: then not. ra is the word's value.
func FramelessLeaf(w *walker.Walker, last *walker.Frame, sp, fp uint64, a Arch) (ra uint64, ok bool) {
	if !w.HasCode() || last.Trust != walker.TrustContext || last.Function == "" || fp < sp {
		return 0, false
	}
	mask := ^uint64(0)
	if a.WordSize == 4 {
		mask = 0xffffffff
	}
	ra, ok1 := w.ReadWord(sp, a.WordSize)
	recRA, ok2 := w.ReadWord(fp+uint64(a.WordSize), a.WordSize)
	if !ok1 || !ok2 || ra < walker.MinCallerIP {
		return 0, false
	}
	// Two candidates for last's caller: the word at sp, and the record's.
	c := NewCandidate(w, last, a, mask, sp, ra)
	rec := NewCandidate(w, last, a, mask, fp+uint64(a.WordSize), recRA)
	if !c.InFunction() || c.SymbolObjection() != "" || SameFunction(w, (ra-1)&mask, last.Instruction) {
		return 0, false
	}
	v := c.Call()
	if v == NoCall || rec.Call() == Confirmed {
		return 0, false
	}
	if v == Confirmed {
		return ra, true
	}
	// The record is the next frame's when its return address follows a
	// direct call to the function the word at sp returns into.
	caller := &walker.Frame{Instruction: (ra - 1) & mask, Context: minidump.NewContext(last.Context.Arch)}
	w.Symbolize(caller, false)
	return ra, caller.Function != "" && NewCandidate(w, caller, a, mask, rec.Loc, recRA).Call() == Confirmed
}
