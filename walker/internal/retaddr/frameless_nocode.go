package retaddr

import "github.com/minidump-stackwalk/minidump-stackwalk/walker"

// FramelessLeafWithoutCode decides FramelessLeaf's question where the dump
// holds no code of last's function (a client that kept none there, as
// Windows' MiniDumpNormal keeps none anywhere), from the stack and the
// symbol file alone, for a context frame without CFI (the caller checks
// that). The word at sp is taken as the return address, over the frame
// record at fp, when all of this holds:
//   - it returns into a function of the symbol file (FUNC or PUBLIC), not
//     to a function's first byte nor anything else the symbols rule out,
//     and not into last's own function (a leaf is not its own caller);
//   - the record at fp lies above it and continues the chain: its return
//     address is in a function too, another one than the word's (the
//     record is the word's function's, which was called from elsewhere),
//     and its saved frame pointer is 0 or above the record, in the stack.
//
// why says so for the trace. Only the extended tables' frameless-leaf
// rules ask (Breakpad knows no such rule).
func FramelessLeafWithoutCode(w *walker.Walker, last *walker.Frame, sp, fp uint64, a Arch) (ra uint64, why string, ok bool) {
	if last.Trust != walker.TrustContext || last.Function == "" || fp < sp+uint64(a.WordSize) {
		return 0, "", false
	}
	var b [1]byte
	if w.ReadCode(last.Instruction, b[:]) || w.ReadCode(last.FunctionBase, b[:]) {
		return 0, "", false // the code decides (FramelessLeaf, the prologue rules)
	}
	mask := ^uint64(0)
	if a.WordSize == 4 {
		mask = 0xffffffff
	}
	ra, ok1 := w.ReadWord(sp, a.WordSize)
	recRA, ok2 := w.ReadWord(fp+uint64(a.WordSize), a.WordSize)
	savedFP, ok3 := w.ReadWord(fp, a.WordSize)
	if !ok1 || !ok2 || !ok3 || ra < walker.MinCallerIP || recRA < walker.MinCallerIP {
		return 0, "", false
	}
	c := NewCandidate(w, last, a, mask, sp, ra)
	rec := NewCandidate(w, last, a, mask, fp+uint64(a.WordSize), recRA)
	switch {
	case !c.InFunction() || c.SymbolObjection() != "" || SameFunction(w, (ra-1)&mask, last.Instruction):
		return 0, "", false
	case !rec.InFunction() || SameFunction(w, (recRA-1)&mask, (ra-1)&mask):
		return 0, "", false
	}
	if savedFP != 0 {
		if _, inStack := w.ReadWord(savedFP, a.WordSize); !inStack || savedFP <= fp {
			return 0, "", false
		}
	}
	return ra, "no code of the function in the dump; the record above returns into another function and continues the chain", true
}
