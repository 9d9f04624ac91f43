package arm

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// step is what the rules of one Caller share.
type step struct {
	last        *walker.Frame // the frame whose caller is sought
	scanAllowed bool          // the stack-scan cap is not reached
	ios         bool          // iOS: r7 is the frame pointer, CFI is not used
}

// mode is what the walk's mode and OS choose once: the caller rules in
// order, the stop rule (why it refuses the caller, "" when it does
// not), and whether a caller that returns to a sigreturn trampoline's
// first instruction is looked up there (the kernel made it the handler's
// return address; Breakpad looks up the instruction before, as for any
// call).
type mode struct {
	rules           walker.CallerRules[step]
	stop            func(pc, sp, lastSP uint64, last, f *walker.Frame) string
	sigreturnLookup bool
}

// The tables (docs/design.md, "Caller rules"). Breakpad's are its ARM
// walker's methods in its order: CFI (not on iOS, where its tools did not
// collect it correctly), the r7 frame pointer on iOS only, the scan. The
// extended ones add the signal frame (and end the walk at a trampoline
// without one), the leaf return through lr, the frame record on every
// OS with the frameless caller under it, the checked scan, and the
// extended stop rule.
var (
	breakpadRules = mode{stop: breakpadStop, rules: walker.CallerRules[step]{
		{Name: "cfi", Find: cfiRule},
		{Name: "breakpadScan", Find: breakpadScanRule},
	}}
	breakpadIOSRules = mode{stop: breakpadStop, rules: walker.CallerRules[step]{
		{Name: "noCFIOnIOS", Find: noCFIOnIOSRule},
		{Name: "breakpadFramePointer", Find: breakpadFramePointerRule},
		{Name: "breakpadScan", Find: breakpadScanRule},
	}}
	extendedRules = mode{stop: extendedStop, sigreturnLookup: true, rules: walker.CallerRules[step]{
		{Name: "signalFrame", Find: signalFrameRule},
		{Name: "trampolineEnds", Find: trampolineEndsRule},
		{Name: "cfi", Find: cfiRule},
		{Name: "leafReturnOrFramePointer", Find: leafReturnOrFramePointerRule},
		{Name: "checkedScan", Find: checkedScanRule},
	}}
	extendedIOSRules = mode{stop: extendedStop, sigreturnLookup: true, rules: walker.CallerRules[step]{
		{Name: "signalFrame", Find: signalFrameRule},
		{Name: "trampolineEnds", Find: trampolineEndsRule},
		{Name: "noCFIOnIOS", Find: noCFIOnIOSRule},
		{Name: "leafReturnOrFramePointer", Find: leafReturnOrFramePointerRule},
		{Name: "checkedScan", Find: checkedScanRule},
	}}
)

// modeOf chooses the table for env's mode and OS.
func modeOf(env *walker.Env) *mode {
	ios := env.OS == "ios"
	switch {
	case env.Mode == walker.Breakpad && ios:
		return &breakpadIOSRules
	case env.Mode == walker.Breakpad:
		return &breakpadRules
	case ios:
		return &extendedIOSRules
	}
	return &extendedRules
}

// breakpadStop is Breakpad's stop rule (walker.Terminate).
func breakpadStop(pc, sp, lastSP uint64, last, _ *walker.Frame) string {
	if walker.Terminate(pc, sp, lastSP, last.Trust == walker.TrustContext) {
		return "pc below 4096 or sp not above the callee's"
	}
	return ""
}

// extendedStop is Breakpad's stop rule with an unchanged sp allowed from
// any frame at its exact pc, and then only for a leaf return or a CFI
// entry row.
func extendedStop(pc, sp, lastSP uint64, last, f *walker.Frame) string {
	if walker.Terminate(pc, sp, lastSP, last.Trust == walker.TrustContext || exact(last)) {
		return "pc below 4096 or sp not above the callee's"
	}
	if sp == lastSP && f.Trust != walker.TrustCFI && f.Trust != walker.TrustLeaf {
		return "sp unchanged: only a leaf return or a CFI entry row may keep it"
	}
	return ""
}

// signalFrameRule: the kernel's signal frame above a sigreturn
// trampoline (sigframe.go).
func signalFrameRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return bySignalFrame(w, s.last), false
}

// trampolineEndsRule ends the walk at a sigreturn trampoline whose signal
// frame did not validate: only the signal frame unwinds the trampoline,
// a scan would take the frame's saved registers for return addresses.
func trampolineEndsRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if pc, _ := s.last.Context.Index(regPC); s.last.Trust != walker.TrustContext && trampolineAt(w, pc) != notTrampoline {
		w.Reject(walker.RuleStop, "the sigreturn trampoline at %#x has no valid signal frame above it", pc)
		return nil, true
	}
	return nil, false
}

// noCFIOnIOSRule: Breakpad ignores iOS CFI, which its tools did not
// collect correctly.
func noCFIOnIOSRule(w *walker.Walker, _ step) (*walker.Frame, bool) {
	w.Reject(walker.RuleCFI, "iOS CFI is not used")
	return nil, false
}

// cfiRule: the STACK CFI rules.
func cfiRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	f, _ := w.TryCFI(s.last, func(rules symfile.CFIRules, _ walker.CFISource) *walker.Frame {
		return byCFI(w, s.last, rules)
	})
	return f, false
}

// breakpadFramePointerRule: Breakpad's frame pointer, r7 (iOS only).
func breakpadFramePointerRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return w.Tried(walker.RuleFrameRecord, byFramePointerBreakpad(w, s.last, regR7)), false
}

// leafReturnOrFramePointerRule: the frame record (byFramePointer) is
// found first: it bounds a leaf's search for its pushed lr. A frame at
// its exact pc returns through lr (byLeafReturn) unless the APCS record
// at r11 is its own; else the record gives the caller, unless a word
// below it unwinds to it by CFI (framelessCaller: the record is the
// caller's caller's). Also on iOS: CFI that lands exactly on the record
// is evidence even where it is too unreliable to unwind by.
func leafReturnOrFramePointerRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	rec := byFramePointer(w, s.last, s.ios)
	var f *walker.Frame
	if rec != nil && ownAPCSRecord(w, s.last) {
		w.Reject(walker.RuleLeafReturn, "the APCS record at r11 is this function's: it has saved lr")
	} else if exact(s.last) {
		f = w.Tried(walker.RuleLeafReturn, byLeafReturn(w, s.last, rec))
	}
	if f == nil {
		f = w.Tried(walker.RuleFrameRecord, rec)
	} else if rec != nil {
		w.Reject(walker.RuleFrameRecord, "a frame record gives pc %#x, but LR returns first", raw(rec)[regPC])
	}
	if f != nil && f.Rule != walker.RuleFrameRecord {
		return f, false
	}
	if c := framelessCaller(w, s.last, s.ios); c != nil {
		if f != nil {
			w.Reject(walker.RuleFrameRecord, "the record at pc %#x is the caller's caller's: a word below it unwinds to it by CFI", raw(f)[regPC])
		}
		f = c
	}
	return f, false
}

// breakpadScanRule: Breakpad's scan, the first word that points into a
// function.
func breakpadScanRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if !s.scanAllowed {
		return nil, false
	}
	return w.Tried(walker.RuleScan, byScan(w, s.last, false, s.ios)), false
}

// checkedScanRule: the scan of validated candidates (byScan).
func checkedScanRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if !s.scanAllowed {
		return nil, false
	}
	return w.Tried(walker.RuleScan, byScan(w, s.last, true, s.ios)), false
}
