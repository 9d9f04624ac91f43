package retaddr

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// chainedCandidate returns the first candidate in [start, loc) that some
// candidate in (it, loc) shows to be called directly, or that is followed
// in (it, loc) by a return address into callee's own function (callee is
// active again deeper, and the confirmed word is that deeper call's), else
// loc and ra.
// The confirmed word itself does not count: when the earlier candidate
// lies in callee's own function (a stale return address of an earlier
// call, or callee's caller is callee's function) it confirms both alike.
func chainedCandidate(w *walker.Walker, callee *walker.Frame, start, loc, ra uint64, size int) (uint64, uint64, bool) {
	mask := ^uint64(0)
	if size == 4 {
		mask = 0xffffffff
	}
	step := uint64(size)
	candidate := func(l uint64) (uint64, bool) {
		v, ok := w.ReadWord(l, size)
		if !ok || !w.InstructionSeemsValid((v-1)&mask) {
			return 0, false
		}
		return v, true
	}
	for l := start; l < loc; l += step {
		v, ok := candidate(l)
		if !ok || Judge(w, callee, v) == NoCall {
			continue
		}
		// The first candidate the call-site scan passed over.
		earlier := &walker.Frame{Instruction: (v - 1) & mask, Context: minidump.NewContext(callee.Context.Arch)}
		w.Symbolize(earlier, false)
		if callsIntoPublic(w, callee, earlier, v) {
			w.Reject(walker.RuleScanCallSite, "word at %#x = %#x: confirmed, but the earlier candidate at %#x calls into callee's PUBLIC range", loc, ra, l)
			return l, v, true
		}
		if earlier.Function == "" {
			break
		}
		for m := l + step; m < loc; m += step {
			u, ok := candidate(m)
			if !ok {
				continue
			}
			if Judge(w, earlier, u) == Confirmed {
				w.Reject(walker.RuleScanCallSite, "word at %#x = %#x: confirmed, but the earlier candidate at %#x is called directly at %#x", loc, ra, l, m)
				return l, v, true
			}
			if Judge(w, callee, u) != NoCall && SameFunction(w, (u-1)&mask, callee.Instruction) {
				w.Reject(walker.RuleScanCallSite, "word at %#x = %#x: confirmed, but a return into callee's function at %#x lies below it (a deeper call)", loc, ra, m)
				return l, v, true
			}
		}
		break
	}
	return loc, ra, true
}

// callsIntoPublic reports whether the candidate ra (in function earlier)
// follows a direct call to an address inside the range callee's PUBLIC
// symbol gives it, after the symbol's start and at or before callee's
// instruction: a function the symbol file leaves out starts there, and it
// is callee's own. A PUBLIC symbol covers everything up to the next
// symbol, so the candidate confirmed by a call to the PUBLIC's start called
// another function.
func callsIntoPublic(w *walker.Walker, callee, earlier *walker.Frame, ra uint64) bool {
	if !callee.IsPublic || callee.Function == "" || (earlier.Function == callee.Function && earlier.FunctionBase == callee.FunctionBase) {
		return false
	}
	cs := ClassifyCallSite(w, callee.Context.Arch, ra)
	return cs.Kind == CallDirect && cs.Target > callee.FunctionBase && cs.Target <= callee.Instruction
}
