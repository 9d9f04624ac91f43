package walker

import "github.com/minidump-stackwalk/minidump-stackwalk/symfile"

// CallerRule is one method an architecture tries for the caller of a
// frame: CFI, the frame record, a stack scan... Each architecture keeps
// ordered tables of them, one per mode (and OS where it matters), chosen
// once from Env; the documented differences from Breakpad's walkers are
// rules present in the Extended table and absent from Breakpad's.
// C is what the architecture's rules of one step share (the callee
// frame, whether a scan is allowed, what an earlier rule learnt).
type CallerRule[C any] struct {
	// Name names the rule in the tables' documentation (docs/design.md)
	// and their tests; the trace names each frame by its Rule.
	Name string
	// Find returns the caller it finds, or nil; end reports that the
	// evidence ends the walk here (no later rule is tried).
	Find func(w *Walker, c C) (f *Frame, end bool)
}

// CallerRules is an ordered table of rules.
type CallerRules[C any] []CallerRule[C]

// Try tries the rules in order and returns the first caller one finds,
// or nil when none finds one or one ends the walk. A caller whose pc the
// dump shows to be no code (returnsIntoData) is refused and the next rule
// tried, whichever rule found it.
func (rs CallerRules[C]) Try(w *Walker, c C) *Frame {
	for i := range rs {
		f, end := rs[i].Find(w, c)
		if end {
			return nil
		}
		if f != nil && !w.returnsIntoData(f) {
			return f
		}
	}
	return nil
}

// ReturnsIntoData reports whether pc, read as a return address, is data
// by the dump's memory map: pc and pc-1 both NotCode (see returnsIntoData
// for why both). Rules that fall back inside themselves (x86's frame
// record to its scan) ask it; CallerRules asks it of every caller.
func (w *Walker) ReturnsIntoData(pc uint64) bool {
	return pc >= MinCallerIP && w.NotCode(pc-1) && w.NotCode(pc)
}

// returnsIntoData refuses, outside Breakpad's mode, a caller f whose pc
// lies in memory the dump's map lists as not executable and in no module
// (NotCode): a return address is the instruction after a call, in code
// the process could run. CFI that reads a slot holding data (an
// unwinder's rewritten save area, a wrong CFA), a frame record or a leaf
// return through a stale or corrupt word give such a pc. A signal frame's
// pc is the interrupted instruction, which may be anywhere (a call
// through a bad pointer); a pc below MinCallerIP is left to the stop rule.
// Both pc and pc-1 must be no code: the call lies before the pc (pc-1
// is inside it, or for Thumb's pc with bit 0 set the return address
// itself), and a call may end its mapping; but a signal handler returns
// to a sigreturn trampoline's first byte, which no call precedes (qemu's
// arm64 trampoline page follows the rw-p stack: arm64-signal's maps).
func (w *Walker) returnsIntoData(f *Frame) bool {
	if f.Trust == TrustSignal || w.Env.Executable == nil || w.Breakpad() {
		return false
	}
	pc, ok := f.Context.IP()
	if !ok || !w.ReturnsIntoData(pc) {
		return false
	}
	w.found = ""
	if w.Env.Trace { // boxing the arguments allocates
		w.Reject(f.Rule, "pc %#x is no code: in no module, and the dump's memory map lists it in no executable mapping", pc)
	}
	return true
}

// TryCFI is what every architecture's CFI rule shares: last's CFI rules
// (CFIRulesFrom, symbols first) handed to unwind, the attempt noted under
// the source's rule; found is false, and the absence noted for the
// trace, where last has none.
func (w *Walker) TryCFI(last *Frame, unwind func(symfile.CFIRules, CFISource) *Frame) (f *Frame, found bool) {
	rules, src, ok := w.CFIRulesFrom(last)
	if !ok {
		if w.Env.Trace { // boxing the arguments allocates
			w.Reject(RuleCFI, "no STACK CFI at %#x", last.Instruction)
		}
		return nil, false
	}
	return w.Tried(src.Rule(), unwind(rules, src)), true
}
