package walker

import "fmt"

// Rule names the method that recovered a frame. Trust says how far a frame
// can be believed, in Breakpad's terms; Rule says which evidence produced
// it, finer than Trust (a scanned frame may be the first plausible word,
// or a word whose call site calls the callee).
type Rule uint8

// Rules.
const (
	RuleNone           Rule = iota
	RuleContext             // the thread's context (frame 0)
	RuleInline              // an inlined call, from INLINE records
	RuleCFI                 // STACK CFI rules
	RuleStackWin            // x86 STACK WIN program or frame data
	RuleStackWinScan        // STACK WIN result corrected by a scan
	RuleFrameRecord         // the frame record the frame pointer points at
	RuleLeafReturn          // a leaf's return: LR (arm, arm64) or [sp] (amd64 Windows)
	RulePrologue            // at a function's entry or in its prologue, read from the code or symbols
	RuleRecordOwnerCFI      // a stack word whose CFI unwinds exactly to the frame record above it
	RuleScan                // a stack scan: the first word that points into a function (Breakpad's)
	RuleScanChecked         // a stack scan: the first word that passes the symbol and CFI checks
	RuleScanAfterCall       // a stack scan: a word that follows a call instruction in the dump's code
	RuleScanCallSite        // a stack scan: a word that follows a direct call to the callee's function
	RuleRealigned           // a realigned frame (GCC's DRAP): its frame record and the saved pre-alignment stack pointer
	RuleSignal              // the interrupted frame of a signal handler: the registers the kernel's signal frame saved
	RuleModulePrologue      // unwind rules read from the function's prologue in the module's own file (Env.Native; Trust: CFI)
	RuleScanEntry           // a stack scan: the return into the program's entry function or a thread's start function (clone), or the word below the entry's that the start function's frame leaves (arm)
	RuleStop                // not a frame: the stop rule ended the walk
)

var ruleNames = [...]string{
	RuleNone:           "none",
	RuleContext:        "context",
	RuleInline:         "inline",
	RuleCFI:            "cfi",
	RuleStackWin:       "stack_win",
	RuleStackWinScan:   "stack_win_scan",
	RuleFrameRecord:    "frame_record",
	RuleLeafReturn:     "leaf_return",
	RulePrologue:       "prologue",
	RuleRecordOwnerCFI: "record_owner_cfi",
	RuleScan:           "scan",
	RuleScanChecked:    "scan_checked",
	RuleScanAfterCall:  "scan_after_call",
	RuleScanCallSite:   "scan_call_site",
	RuleRealigned:      "realigned_frame",
	RuleSignal:         "signal_frame",
	RuleModulePrologue: "module_prologue",
	RuleScanEntry:      "scan_entry",
	RuleStop:           "stop",
}

// String returns the rule's short name.
func (r Rule) String() string {
	if int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return "none"
}

// Step is one step of a walk, recorded when Env.Trace is set: a method
// tried for a caller, or a candidate it rejected, and why; or the method
// that produced the frame (Taken).
type Step struct {
	Rule  Rule
	Taken bool   // this step produced the frame
	Note  string // what was found, or why it was rejected
}

// Tracing reports whether the walk records its steps (Env.Trace). Callers
// check it before formatting a note in a loop.
func (w *Walker) Tracing() bool { return w.Env.Trace }

// Reject records, when tracing, that rule gave no caller or that a
// candidate of it was rejected, and why. Boxing args allocates even when
// nothing is recorded: calls on a walk's every frame or candidate are
// guarded with Tracing.
func (w *Walker) Reject(rule Rule, format string, args ...any) {
	if !w.Env.Trace {
		return
	}
	w.steps = append(w.steps, Step{Rule: rule, Note: fmt.Sprintf(format, args...)})
}

// Found records, when tracing, what the method that produces the next
// frame found (the step Walk marks Taken). The first note stands: the
// innermost code that found the evidence says it best. A method that
// then gives no frame drops its note (Tried).
func (w *Walker) Found(format string, args ...any) {
	if !w.Env.Trace || w.found != "" {
		return
	}
	w.found = fmt.Sprintf(format, args...)
}

// Tried records that rule was tried for the caller of w.Last() and gave f:
// a frame without a rule gets rule; a nil f is a rejection, noted as such
// unless the method said why already. It returns f.
func (w *Walker) Tried(rule Rule, f *Frame) *Frame {
	if f != nil {
		if f.Rule == RuleNone {
			f.Rule = rule
		}
		return f
	}
	w.found = ""
	if w.Env.Trace && (len(w.steps) == 0 || w.steps[len(w.steps)-1].Rule != rule) {
		w.steps = append(w.steps, Step{Rule: rule, Note: "no caller"})
	}
	return nil
}

// Stopped records, when tracing, that the stop rule refused the caller f
// the architecture found, and returns nil.
func (w *Walker) Stopped(f *Frame, why string) *Frame {
	if w.Env.Trace {
		ip, _ := f.Context.IP()
		sp, _ := f.Context.SP()
		w.steps = append(w.steps, Step{Rule: f.Rule, Note: fmt.Sprintf("caller pc %#x sp %#x refused: %s", ip, sp, why)})
	}
	return nil
}

// takeSteps returns the steps recorded for the frame f (nil: none was
// found) with the taken step last, and starts the next frame's.
func (w *Walker) takeSteps(f *Frame) []Step {
	steps := w.steps
	if f != nil {
		note := w.found
		if note == "" {
			ip, _ := f.Context.IP()
			sp, _ := f.Context.SP()
			note = fmt.Sprintf("pc %#x sp %#x", ip, sp)
		}
		steps = append(steps, Step{Rule: f.Rule, Taken: true, Note: note})
	}
	w.steps, w.found = nil, ""
	return steps
}
