package amd64

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/internal/retaddr"
)

// step is what the rules of one Caller share.
type step struct {
	last        *walker.Frame // the frame whose caller is sought
	scanAllowed bool          // the stack-scan cap is not reached
}

// mode is what the walk's mode and OS choose once: the caller rules in
// order, and whether a caller that returns to a sigreturn trampoline's
// first byte is looked up there (the kernel made that byte the handler's
// return address; Breakpad looks up the byte before, as for any call).
type mode struct {
	rules           walker.CallerRules[step]
	sigreturnLookup bool
}

// The four tables (docs/design.md, "Caller rules"). Breakpad's are its
// amd64 walker's methods in its order; the extended ones add the signal
// frame, a realigned frame where CFI gives none or one that cannot be,
// the prologue and a frameless frame 0 read from the code, and the
// checked scan. Windows has no frame-pointer chain unless the code shows
// the prologue, and returns from a leaf context frame through [rsp].
var (
	breakpadRules = mode{rules: walker.CallerRules[step]{
		{Name: "cfi", Find: cfiRule},
		{Name: "framePointer", Find: framePointerRule},
		{Name: "breakpadScan", Find: breakpadScanRule},
	}}
	breakpadWindowsRules = mode{rules: walker.CallerRules[step]{
		{Name: "cfi", Find: cfiRule},
		{Name: "simulatedReturn", Find: simulatedReturnRule},
		{Name: "framePointerProven", Find: framePointerProvenRule},
		{Name: "breakpadScan", Find: breakpadScanRule},
	}}
	extendedRules = mode{sigreturnLookup: true, rules: walker.CallerRules[step]{
		{Name: "signalFrame", Find: signalFrameRule},
		{Name: "cfiOrRealigned", Find: cfiOrRealignedRule},
		{Name: "prologue", Find: prologueRule},
		{Name: "framelessLeaf", Find: framelessLeafRule},
		{Name: "realigned", Find: realignedRule},
		{Name: "framePointer", Find: framePointerRule},
		{Name: "checkedScan", Find: checkedScanRule},
	}}
	extendedWindowsRules = mode{sigreturnLookup: true, rules: walker.CallerRules[step]{
		{Name: "signalFrame", Find: signalFrameRule},
		{Name: "cfiOrRealigned", Find: cfiOrRealignedRule},
		{Name: "prologue", Find: prologueRule},
		{Name: "framelessLeaf", Find: framelessLeafRule},
		{Name: "simulatedReturn", Find: simulatedReturnRule},
		{Name: "framePointerProven", Find: framePointerProvenRule},
		{Name: "checkedScan", Find: checkedScanRule},
	}}
)

// modeOf chooses the table for env's mode and OS.
func modeOf(env *walker.Env) *mode {
	windows := env.OS == "windows"
	switch {
	case env.Mode == walker.Breakpad && windows:
		return &breakpadWindowsRules
	case env.Mode == walker.Breakpad:
		return &breakpadRules
	case windows:
		return &extendedWindowsRules
	}
	return &extendedRules
}

// signalFrameRule: the kernel's signal frame above the sigreturn
// trampoline (signal.go).
func signalFrameRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return bySignalFrame(w, s.last), false
}

// cfiStep tries the STACK CFI (or module unwind table) rules; found says
// there were rules, end that they unwind to the end of a Windows stack.
func cfiStep(w *walker.Walker, s step) (f *walker.Frame, found, end bool) {
	f, found = w.TryCFI(s.last, func(rules symfile.CFIRules, src walker.CFISource) *walker.Frame {
		f := byCFI(w, s.last, rules)
		end = f == nil && endOfStack(w, s.last, rules, src) // pe.go
		return f
	})
	return f, found, end
}

// cfiRule: Breakpad's CFI step.
func cfiRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	f, _, end := cfiStep(w, s)
	return f, end
}

// cfiOrRealignedRule: CFI, or a realigned frame's record where CFI gives
// no caller or one that cannot be: a realigned frame's CFA is a DWARF
// expression dump_syms cannot write, and its rows name a register (r10,
// r13) the caller does not know.
func cfiOrRealignedRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	f, found, end := cfiStep(w, s)
	if !found || end || f != nil && !cannotBeCaller(w, f, s.last) {
		return f, end
	}
	if d := w.Tried(walker.RuleRealigned, byDRAP(w, s.last)); d != nil {
		if f != nil {
			ip, _ := f.Context.IP()
			w.Reject(walker.RuleCFI, "CFI's caller (rip %#x) cannot be one", ip)
		}
		f = d
	}
	return f, false
}

// prologueRule: frame 0 at a function's entry or in its prologue, read
// from the dump's code (entry.go).
func prologueRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if !w.HasCode() || s.last.Trust != walker.TrustContext {
		return nil, false
	}
	return w.Tried(walker.RulePrologue, byEntry(w, s.last)), false
}

// framelessLeafRule: a frameless frame 0 returns through [rsp]
// (byFramelessLeaf).
func framelessLeafRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if !w.HasCode() || s.last.Trust != walker.TrustContext {
		return nil, false
	}
	return w.Tried(walker.RuleLeafReturn, byFramelessLeaf(w, s.last)), false
}

// realignedRule: without CFI (dump_syms may leave a realigning function's
// rows out) the same evidence tells a realigned frame's record; only in a
// function the symbols name (the frame pointer of code without symbols, a
// vDSO trampoline's, may be an earlier frame's).
func realignedRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if s.last.Function == "" {
		return nil, false
	}
	return w.Tried(walker.RuleRealigned, byDRAP(w, s.last)), false
}

// simulatedReturnRule: Windows' leaf context frame returns through the
// word at rsp (Breakpad's GetCallerBySimulatingReturn).
func simulatedReturnRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if s.last.Trust != walker.TrustContext {
		return nil, false
	}
	return w.Tried(walker.RuleLeafReturn, bySimulatingReturn(w, s.last)), false
}

// framePointerRule follows the frame record at rbp, unless the code shows
// the function keeps no frame pointer.
func framePointerRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return frameRecord(w, s.last, false), false
}

// framePointerProvenRule: on Windows rbp is no frame pointer unless the
// code shows the prologue that makes it one.
func framePointerProvenRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return frameRecord(w, s.last, true), false
}

func frameRecord(w *walker.Walker, last *walker.Frame, needProof bool) *walker.Frame {
	switch proven := keepsFramePointerByCode(w, last); {
	case framelessByCode(w, last):
		w.Reject(walker.RuleFrameRecord, "the code shows %s keeps no frame pointer", last.Function)
	case needProof && !proven:
		w.Reject(walker.RuleFrameRecord, "Windows: rbp is no frame pointer unless the code shows the prologue")
	default:
		return w.Tried(walker.RuleFrameRecord, byFramePointer(w, last, proven))
	}
	return nil
}

// breakpadScanRule: Breakpad's scan, the first word that points into a
// function.
func breakpadScanRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if !s.scanAllowed {
		return nil, false
	}
	return w.Tried(walker.RuleScan, byScan(w, s.last, 0)), false
}

// checkedScanRule: the scan's candidates less those the symbols rule out
// (a function's first byte, _init's padding, _fini, the entry point),
// chosen by their call sites when the dump holds code.
func checkedScanRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if !s.scanAllowed {
		return nil, false
	}
	return w.Tried(walker.RuleScan, byScan(w, s.last, retaddr.CheckSymbols)), false
}
