package x86

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
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

// The tables (docs/design.md, "Caller rules"). Breakpad's are its x86
// walker's methods in its order, each with Breakpad's scan as its
// fallback; the extended ones add the signal frame, the callee's own
// parameter size for STACK WIN programs, a realigned frame, the prologue
// and a frameless frame 0, and fall back on the checked scan. Only
// Windows lacks the realigned rule without CFI.
var (
	breakpadRules = mode{rules: walker.CallerRules[step]{
		{Name: "breakpadStackWin", Find: breakpadStackWinRule},
		{Name: "cfi", Find: cfiRule},
		{Name: "framePointerOrBreakpadScan", Find: framePointerOrBreakpadScanRule},
	}}
	extendedRules = mode{sigreturnLookup: true, rules: walker.CallerRules[step]{
		{Name: "signalFrame", Find: signalFrameRule},
		{Name: "stackWin", Find: stackWinRule},
		{Name: "cfiOrRealigned", Find: cfiOrRealignedRule},
		{Name: "prologue", Find: prologueRule},
		{Name: "framelessLeaf", Find: framelessLeafRule},
		{Name: "realigned", Find: realignedRule},
		{Name: "framePointerOrCheckedScan", Find: framePointerOrCheckedScanRule},
	}}
	extendedWindowsRules = mode{sigreturnLookup: true, rules: walker.CallerRules[step]{
		{Name: "signalFrame", Find: signalFrameRule},
		{Name: "stackWin", Find: stackWinRule},
		{Name: "cfiOrRealigned", Find: cfiOrRealignedRule},
		{Name: "prologue", Find: prologueRule},
		{Name: "framelessLeaf", Find: framelessLeafRule},
		{Name: "framePointerOrCheckedScan", Find: framePointerOrCheckedScanRule},
	}}
)

// modeOf chooses the table for env's mode and OS.
func modeOf(env *walker.Env) *mode {
	switch {
	case env.Mode == walker.Breakpad:
		return &breakpadRules
	case env.OS == "windows":
		return &extendedWindowsRules
	}
	return &extendedRules
}

// signalFrameRule: the kernel's signal frame above a sigreturn
// trampoline (signal.go, sigframe_nocode.go).
func signalFrameRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return bySignalFrame(w, s.last), false
}

// stackWin tries the STACK WIN program or FPO record covering last.
func stackWin(w *walker.Walker, s step, breakpad bool) *walker.Frame {
	info := findFrameInfo(w, s.last)
	if info == nil {
		if w.Tracing() { // boxing the arguments allocates
			w.Reject(walker.RuleStackWin, "no STACK WIN or FUNC record at %#x", s.last.Instruction)
		}
		return nil
	}
	return w.Tried(walker.RuleStackWin, byWindowsFrameInfo(w, s.last, info, s.scanAllowed, breakpad))
}

// breakpadStackWinRule: STACK WIN as Breakpad runs it: .cbCalleeParams
// from the innermost frame with a known size, Breakpad's scan.
func breakpadStackWinRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return stackWin(w, s, true), false
}

// stackWinRule: STACK WIN with the callee's own parameter size and the
// checked scan.
func stackWinRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return stackWin(w, s, false), false
}

// cfiStep tries the STACK CFI rules; found says there were rules.
func cfiStep(w *walker.Walker, s step) (f *walker.Frame, found bool) {
	return w.TryCFI(s.last, func(rules symfile.CFIRules, _ walker.CFISource) *walker.Frame {
		return byCFI(w, s.last, rules)
	})
}

// cfiRule: Breakpad's CFI step.
func cfiRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	f, _ := cfiStep(w, s)
	return f, false
}

// cfiOrRealignedRule: CFI, or a realigned frame's record where CFI gives
// no caller or one that cannot be: a realigned frame's CFA is a DWARF
// expression dump_syms cannot write, its rows name a register the caller
// does not know or (past the epilogue, where GCC puts main's calls)
// describe another state of the frame.
func cfiOrRealignedRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	f, found := cfiStep(w, s)
	if !found || f != nil && !cannotBeCaller(w, f, s.last) {
		return f, false
	}
	if d := w.Tried(walker.RuleRealigned, byDRAP(w, s.last)); d != nil {
		if f != nil {
			w.Reject(walker.RuleCFI, "CFI's caller (pc %#x) cannot be one", reg(f, minidump.X86EIP))
		}
		f = d
	}
	return f, false
}

// prologueRule: frame 0 at a function's entry or in its prologue, read
// from the code or the symbols (entry.go).
func prologueRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if s.last.Trust != walker.TrustContext {
		return nil, false
	}
	return w.Tried(walker.RulePrologue, byEntry(w, s.last)), false
}

// framelessLeafRule: a frameless frame 0 returns through [esp]
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
// vDSO trampoline's, may be an earlier frame's). With CFI,
// cfiOrRealignedRule tried it already.
func realignedRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	if s.last.Function == "" {
		return nil, false
	}
	if _, _, withCFI := w.CFIRulesFrom(s.last); withCFI {
		return nil, false
	}
	return w.Tried(walker.RuleRealigned, byDRAP(w, s.last)), false
}

// framePointerOrBreakpadScanRule: Breakpad's EBP chain, scanning where
// it points nowhere.
func framePointerOrBreakpadScanRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return w.Tried(walker.RuleFrameRecord, byEBP(w, s.last, s.scanAllowed, true, false)), false
}

// framePointerOrCheckedScanRule: the EBP chain, unless the code shows
// the function keeps no frame pointer, else the checked scan.
func framePointerOrCheckedScanRule(w *walker.Walker, s step) (*walker.Frame, bool) {
	return w.Tried(walker.RuleFrameRecord, byEBP(w, s.last, s.scanAllowed, false, framelessByCode(w, s.last))), false
}
