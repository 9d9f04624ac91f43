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
// or nil when none finds one or one ends the walk.
func (rs CallerRules[C]) Try(w *Walker, c C) *Frame {
	for i := range rs {
		f, end := rs[i].Find(w, c)
		if end {
			return nil
		}
		if f != nil {
			return f
		}
	}
	return nil
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
