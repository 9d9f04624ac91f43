package arm64

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// step is what the rules of one Caller share.
type step struct {
	a           *Walker
	last        *walker.Frame // the frame whose caller is sought
	scanAllowed bool          // the stack-scan cap is not reached
}

// mode is what the walk's mode chooses once: the caller rules in order,
// the stop rule (and why it refuses, for the trace), and whether a
// caller that returns to the sigreturn trampoline's first instruction is
// looked up there (the kernel made it the handler's return address;
// Breakpad looks up the instruction before, as for any call).
type mode struct {
	rules           walker.CallerRules[step]
	stop            func(pc, sp, lastSP uint64, last, f *walker.Frame) bool
	stopWhy         string
	sigreturnLookup bool
}

// The tables (docs/design.md, "Caller rules"). Breakpad's is its arm64
// walker's methods in its order; the extended one adds the signal frame
// (and ends the walk at a trampoline without one), CFI at the sp the
// frame's record shows, the leaf return through lr, the frame record
// checked against its owner, a frameless caller under a record, and the
// checked scan.
var (
	breakpadRules = mode{
		rules: walker.CallerRules[step]{
			{Name: "cfi", Find: cfiRule},
			{Name: "breakpadFramePointer", Find: breakpadFramePointerRule},
			{Name: "breakpadScan", Find: breakpadScanRule},
		},
		stop:    breakpadStop,
		stopWhy: "pc below 4096 or sp not above the callee's",
	}
	extendedRules = mode{
		rules: walker.CallerRules[step]{
			{Name: "signalFrame", Find: signalFrameRule},
			{Name: "trampolineEnds", Find: trampolineEndsRule},
			{Name: "cfiAtRecordSP", Find: cfiAtRecordSPRule},
			{Name: "leafReturn", Find: leafReturnRule},
			{Name: "framePointer", Find: framePointerRule},
			{Name: "recordOwnerCFI", Find: recordOwnerCFIRule},
			{Name: "checkedScan", Find: checkedScanRule},
		},
		stop:            terminate,
		stopWhy:         "pc below 4096, sp below the callee's, or sp unchanged where only a leaf return or a CFI entry row may keep it",
		sigreturnLookup: true,
	}
)

// modeOf chooses the table for env's mode.
func modeOf(env *walker.Env) *mode {
	if env.Mode == walker.Breakpad {
		return &breakpadRules
	}
	return &extendedRules
}

// breakpadStop is Breakpad's stop rule (walker.Terminate).
func breakpadStop(pc, sp, lastSP uint64, last, _ *walker.Frame) bool {
	return walker.Terminate(pc, sp, lastSP, last.Trust == walker.TrustContext)
}

// signalFrameRule: the kernel's signal frame above the sigreturn
// trampoline (sigframe.go).
func signalFrameRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return s.a.bySignalFrame(w, s.last), false
}

// trampolineEndsRule ends the walk at a sigreturn trampoline whose signal
// frame did not validate: only the signal frame unwinds the trampoline.
// The handler's x29 points at the record the kernel wrote above it, {x29,
// x30} of the interrupted frame, which would skip the interrupted pc; a
// scan would take the frame's saved registers for return addresses.
func trampolineEndsRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if lastPC, _ := s.last.Context.Index(regPC); s.last.Trust != walker.TrustContext && trampolineAt(w, lastPC) {
		w.Reject(walker.RuleStop, "the sigreturn trampoline at %#x has no valid signal frame above it", lastPC)
		return nil, true
	}
	return nil, false
}

// cfi tries the STACK CFI rules; extended: at the sp the frame's record
// shows (recordsp.go), the caller's x29 and x30 stripped as well.
func cfi(w *walker.Walker, s step, extended bool) *walker.Frame {
	f, _ := w.TryCFI(s.last, func(rules symfile.CFIRules, _ walker.CFISource) *walker.Frame {
		return s.a.byCFI(w, s.last, rules, extended)
	})
	return f
}

// cfiRule: Breakpad's CFI step.
func cfiRule(w *walker.Walker, s step) (*walker.Frame, bool) { return cfi(w, s, false), false }

// cfiAtRecordSPRule: CFI at the sp the frame's own record shows.
func cfiAtRecordSPRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return cfi(w, s, true), false
}

// leafReturnRule: a frame at its exact pc that has not pushed its record
// returns through lr (byLeafReturn).
func leafReturnRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if !exact(s.last) {
		return nil, false
	}
	return w.Tried(walker.RuleLeafReturn, s.a.byLeafReturn(w, s.last)), false
}

// breakpadFramePointerRule: Breakpad's GetCallerByFramePointer.
func breakpadFramePointerRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return w.Tried(walker.RuleFrameRecord, s.a.byFramePointerBreakpad(w, s.last)), false
}

// framePointerRule: the frame record, its pc from the record, checked
// against the function that owns it.
func framePointerRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return w.Tried(walker.RuleFrameRecord, s.a.byFramePointer(w, s.last)), false
}

// recordOwnerCFIRule: a frameless caller between the frame and the record
// above it (framelessCaller).
func recordOwnerCFIRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return w.Tried(walker.RuleRecordOwnerCFI, s.a.framelessCaller(w, s.last)), false
}

// breakpadScanRule: Breakpad's scan, the first word that points into a
// function.
func breakpadScanRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if !s.scanAllowed {
		return nil, false
	}
	return w.Tried(walker.RuleScan, s.a.byScan(w, s.last, false)), false
}

// checkedScanRule: the scan of validated candidates (byScan).
func checkedScanRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if !s.scanAllowed {
		return nil, false
	}
	return w.Tried(walker.RuleScan, s.a.byScan(w, s.last, true)), false
}
