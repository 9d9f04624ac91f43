package retaddr

import (
	"fmt"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// Candidate is a possible caller frame of callee: the return address RA
// found in the stack word at Loc, and the evidence for and against it.
// Each piece of evidence is gathered when first asked for and kept, so a
// rule that reads it twice pays once.
type Candidate struct {
	Loc, RA uint64 // RA with the bits outside the scan's mask cleared

	w      *walker.Walker
	callee *walker.Frame
	a      Arch
	set    *instrSet
	mask   uint64

	call              Verdict
	symbol            string
	cfi, proven       bool
	callDone, symDone bool
	cfiDone, provDone bool
}

// NewCandidate describes the candidate ra, read from the stack word at
// loc (0: from a register), for callee's caller; a describes the
// architecture, mask as for Scan (the word's bits, less any pointer
// signature).
func NewCandidate(w *walker.Walker, callee *walker.Frame, a Arch, mask, loc, ra uint64) *Candidate {
	set := isaOf(callee.Context.Arch).desc()
	mask &= set.mask()
	return &Candidate{Loc: loc, RA: ra & mask, w: w, callee: callee, a: a, set: set, mask: mask}
}

// InFunction is Breakpad's test: RA − 1 lies in a loaded module and, when
// its symbols are loaded, in a FUNC or PUBLIC symbol.
func (c *Candidate) InFunction() bool { return c.w.InstructionSeemsValid((c.RA - 1) & c.mask) }

// inFunction is the InFunction of NewCandidate(w, callee, _, mask, _, ra),
// asked before the Candidate is made: most words of a scan window are no
// candidate, and a Candidate is an allocation.
func inFunction(w *walker.Walker, callee *walker.Frame, mask, ra uint64) bool {
	mask &= isaOf(callee.Context.Arch).desc().mask()
	return w.InstructionSeemsValid((ra&mask - 1) & mask)
}

// Call is what the dump's code says of the call before RA for callee
// (Judge; Undecided without code).
func (c *Candidate) Call() Verdict {
	if !c.callDone {
		c.call, c.callDone = Judge(c.w, c.callee, c.RA), true
	}
	return c.call
}

// SymbolObjection is why the symbols say RA is no return address, ""
// when they do not (symbolObjection).
func (c *Candidate) SymbolObjection() string {
	if !c.symDone {
		c.symbol, c.symDone = symbolObjection(c.w, c.RA, c.set, c.mask, c.RA&^c.set.thumbBit), true
	}
	return c.symbol
}

// RecordSymbolObjection is SymbolObjection for a frame record's return
// address: RA's function looked up with its Thumb bit, which a Thumb
// function's PUBLIC symbol carries (st_value), so that a pointer to such a
// function is its first byte. (The scan looks it up without: at the even
// address a Thumb PUBLIC's first byte reads as the end of the function
// before, and the scan's pairing of two words returning into one function
// takes the higher; refused as a first byte, such a pointer would end the
// window before the real return address, as on arm-threads' thread 1.)
func (c *Candidate) RecordSymbolObjection() string {
	return symbolObjection(c.w, c.RA, c.set, c.mask, c.RA&c.mask)
}

// CFIConsistent reports whether unwinding the candidate frame one step by
// its own CFI gives a plausible caller (CallerConsistent). A stale return
// address left by an earlier call sits at the wrong depth for its
// function's frame, so its CFI reads junk as the next return address. The
// candidate passes when the step cannot be evaluated (no CFI, registers
// or memory missing).
func (c *Candidate) CFIConsistent() bool {
	if !c.cfiDone {
		c.cfi, c.cfiDone = c.cfiConsistent(), true
	}
	return c.cfi
}

func (c *Candidate) cfiConsistent() bool {
	caller, ok := c.cfiStep()
	return !ok || c.CallerConsistent(caller)
}

// cfiStep unwinds the candidate frame one step by its own CFI; false when
// it has none or the step cannot be evaluated.
func (c *Candidate) cfiStep() (minidump.Context, bool) {
	ctx := minidump.NewContext(c.callee.Context.Arch)
	ctx.SetIndex(c.a.PC, c.RA)
	ctx.SetIndex(c.a.SP, c.set.callerSP(c.Loc))
	f := walker.Frame{Instruction: (c.RA - c.set.callOffset) & c.mask, Context: ctx}
	rules, ok := c.w.CFIRules(&f)
	if !ok {
		return minidump.Context{}, false
	}
	return c.w.CallerByCFI(rules, &f, c.a.CFIRegs)
}

// Proven reports whether evidence beyond the word's value shows the
// candidate is a return address: the code before it (in the dump or the
// module's file) holds a call instruction ending there, the
// candidate's own CFI unwinds it one step to a plausible caller
// (CallerConsistent), or it returns into the program's entry function
// or a thread's start function (EntryReturn, ThreadStartReturn). A stale
// return address left in the callee's frame by an earlier call passes
// Breakpad's test and the symbols' as well as the real one; without its
// call site or its CFI nothing tells them apart.
func (c *Candidate) Proven() bool {
	if !c.provDone {
		c.proven, c.provDone = c.proven0(), true
	}
	return c.proven
}

func (c *Candidate) proven0() bool {
	if c.provenBeyondCFI() {
		return true
	}
	caller, ok := c.cfiStep()
	return ok && c.CallerConsistent(caller)
}

// provenBeyondCFI reports whether Proven's evidence other than the
// candidate's own CFI holds: a call before it in the code at hand, or a
// return into the program's entry function or a thread's start function.
func (c *Candidate) provenBeyondCFI() bool {
	return c.set.callSite(c.w, c.RA).Kind.isCall() || c.EntryReturn() || c.ThreadStartReturn()
}

// ThreadStartReturn reports whether RA returns into a function in which
// the kernel starts a new thread (glibc's and musl's __clone, glibc's
// __clone3, by their symbols), past its first byte: its child path calls
// the thread's function, which does not return, and its parent path
// makes no call, so the one word returning into it is the one the
// thread's first function (start_thread) pushed, the outermost frame's.
func (c *Candidate) ThreadStartReturn() bool {
	addr := c.RA &^ c.set.thumbBit & c.mask
	f, ok := c.w.FunctionAt((addr - c.set.callOffset) & c.mask)
	if !ok || addr < c.set.callOffset || addr == f.Base&^c.set.thumbBit {
		return false
	}
	// Not "clone": glibc's is an alias that symbol files may name instead,
	// but musl's is a C wrapper whose parent path calls __clone.
	return f.Name == "__clone" || f.Name == "__clone3" // glibc's and musl's clone.S, glibc's clone3.S
}

// EntryReturn reports whether RA returns into the program's entry
// function (walker.Env.EntryPoint, else Env.EntrySymbol in
// Env.EntryModule), past its first byte. No stale copy of such a word
// exists: the kernel enters that function, nothing calls it, and the
// calls it makes (libc's start function; abort after it) do not return,
// so the one word returning into it is the one its callee pushed, the
// outermost frame's.
func (c *Candidate) EntryReturn() bool {
	env := c.w.Env
	addr := c.RA &^ c.set.thumbBit & c.mask
	f, ok := c.w.FunctionAt((addr - c.set.callOffset) & c.mask)
	switch {
	case !ok || addr < c.set.callOffset || addr == f.Base&^c.set.thumbBit:
		return false
	case env.EntryPoint != 0:
		return f.Base&^c.set.thumbBit == env.EntryPoint&^c.set.thumbBit&c.mask
	}
	return env.EntrySymbol != "" && f.Name == env.EntrySymbol && c.w.ModuleAt(addr) == env.EntryModule
}

// CallerConsistent is CFIConsistent's test of caller, the registers the
// candidate frame's CFI gave (for a walker that unwound the candidate
// itself): it ends the stack (a return address below MinCallerIP), or its
// stack pointer lies above the candidate frame's and its return address
// passes Breakpad's test and the symbols' (SymbolObjection).
func (c *Candidate) CallerConsistent(caller minidump.Context) bool {
	ra, raOK := caller.IP()
	sp, spOK := caller.SP()
	if !raOK || !spOK || ra < walker.MinCallerIP {
		return true
	}
	next := NewCandidate(c.w, c.callee, c.a, c.mask, 0, ra)
	return sp > c.Loc+uint64(c.set.wordSize) && next.InFunction() && next.SymbolObjection() == ""
}

// SignalSaved returns the validated signal frame (walker.NoteSignalFrame)
// whose saved registers hold the candidate's word: the kernel's copy of
// the interrupted frame's pc or lr points into a function, but it is that
// frame's own address, recovered by the signal frame (walker.RuleSignal),
// never a return address above the handler.
func (c *Candidate) SignalSaved() (walker.SignalFrame, bool) {
	if c.Loc == 0 {
		return walker.SignalFrame{}, false // from a register
	}
	return c.w.InSignalFrame(c.Loc)
}

// Checks is the evidence, beyond Breakpad's test and the call site, a
// scan requires of a candidate (Arch.decide).
type Checks uint8

// Checks.
const (
	// CheckSymbols: no symbol rules the candidate out (SymbolObjection).
	CheckSymbols Checks = 1 << iota
	// CheckCFI: the candidate frame's CFI unwinds to a plausible caller.
	CheckCFI
	// CheckProof: a candidate that is not Proven (by its call site or its
	// CFI) is taken only as the first candidate of its scan window: once
	// a word of the window has been refused, the window is shown to hold
	// words that pass Breakpad's test without being return addresses,
	// and an unproven one is no better than the refused (pick.decide);
	// of two unproven words into one function the higher is taken
	// (sameFunctionAbove).
	CheckProof
)

// ScanChecks is what the ARM family's scans require of a candidate: in
// Breakpad's mode nothing (Breakpad's scan), else (validated) the symbols'
// and its own CFI's consent.
func ScanChecks(validated bool) Checks {
	if !validated {
		return 0
	}
	return CheckSymbols | CheckCFI | CheckProof
}

// decide is the one judgement of a candidate's evidence beyond its call
// site, which pick weighs: it lies in no validated signal frame
// (SignalSaved; Breakpad's mode validates none), and every check in
// checks passes. A candidate that fails gets why, for the walk's trace.
func decide(c *Candidate, checks Checks) (ok bool, why string) {
	if s, ok := c.SignalSaved(); ok {
		return false, fmt.Sprintf("a register saved in the signal frame at %#x", s.Lo)
	}
	if checks&CheckSymbols != 0 {
		if o := c.SymbolObjection(); o != "" {
			return false, SymbolsReject + o
		}
	}
	if checks&CheckCFI != 0 && !c.CFIConsistent() {
		return false, "its own CFI unwinds to no plausible caller"
	}
	return true, ""
}

// lineObjection is why the line records say no call ends at addr (ra
// with the Thumb bit cleared; thumb: ra had it), or "": a line record
// starts at an instruction, so one that starts less than the shortest
// call's length before addr (in the FUNC holding addr-1) leaves a shorter
// instruction to end there. ARM-state code's shortest call is 4 bytes.
func lineObjection(w *walker.Walker, addr uint64, thumb bool, set *instrSet) string {
	shortest := set.minCallBytes
	if set.thumbBit != 0 && !thumb {
		shortest = 4
	}
	if shortest < 2 || addr < shortest {
		return ""
	}
	f := &walker.Frame{Instruction: addr - 1}
	w.Symbolize(f, false)
	if f.Function == "" || f.IsPublic || f.SourceFile == "" && f.SourceLine == 0 {
		return ""
	}
	if b := f.SourceLineBase; b > addr-shortest && b < addr {
		return fmt.Sprintf("a line record starts at ra-%d, too short for a call to end at ra", addr-b)
	}
	return ""
}

// SymbolsReject starts the trace note of a candidate the symbols rule out
// (walker.RuleScanChecked: "word at L = RA: symbols: WHY"): tests find
// there the reason a scan passed over a word Breakpad takes.
const SymbolsReject = "symbols: "

// maxInitReturn bounds a return address's offset into _init: the
// crti/crtn code of every supported architecture calls at most once, with
// the return address 0x8 (arm), 0x10 (arm64), 0x12 (amd64) or 0x1b (i386)
// bytes in (0x16 behind an endbr64). Past that lies the section's padding
// and the PLT, which a PUBLIC _init names up to the next symbol.
const maxInitReturn = 0x20

// symbolObjection is why the symbols (and the program's entry point) say
// ra cannot be a return address, beyond Breakpad's test (in a module and,
// with symbols, in a function), or "". It needs no code:
//   - ra is a function's first byte (a function pointer, as the
//     comparator qsort keeps on the stack; _start's entry), unless the
//     FUNC before it ends right there and the dump's code shows a call
//     ending at ra (a call to a noreturn function as its last
//     instruction), or the program's entry point (Env.EntryPoint);
//   - the call before ra would lie in _fini, which calls nothing, or in
//     _init past its code (maxInitReturn), or farther than MaxPublicOffset
//     from the PUBLIC symbol that names it (data after the last function:
//     static binaries' "_fini + 0x1f87a");
//   - on ARM, that PUBLIC's instruction set (its Thumb bit) is not ra's;
//   - the line records of the FUNC before ra make the instruction that
//     ends at ra too short for a call (lineObjection).
func symbolObjection(w *walker.Walker, ra uint64, set *instrSet, mask, lookup uint64) string {
	addr := ra &^ set.thumbBit & mask
	if addr < set.callOffset {
		return "below the first call"
	}
	if e := w.Env.EntryPoint; e != 0 && addr == e&^set.thumbBit&mask {
		return "the program's entry point"
	}
	at := &walker.Frame{Instruction: lookup & mask}
	w.Symbolize(at, false)
	if at.Module == nil {
		return "in no module"
	}
	callAddr := (addr - set.callOffset) & mask
	if at.Function != "" && at.FunctionBase&^set.thumbBit == addr {
		before, ok := w.FunctionAt(callAddr)
		if !ok || before.Public || before.End() != addr || !set.callSite(w, ra).Kind.isCall() {
			return "the first byte of " + at.Function
		}
	}
	if o := lineObjection(w, addr, ra&set.thumbBit != 0, set); o != "" {
		return o
	}
	call, ok := w.FunctionAt(callAddr)
	if !ok || !call.Public {
		return ""
	}
	switch off := callAddr - call.Base; {
	case off > MaxPublicOffset:
		return "too far past the PUBLIC symbol " + call.Name
	case call.Name == "_fini":
		return "in _fini, which calls nothing"
	case call.Name == "_init" && addr-call.Base&^set.thumbBit > maxInitReturn:
		return "past _init's code"
	}
	// On ARM a PUBLIC symbol's address carries the Thumb bit of its
	// function, and a return address the instruction set of its caller:
	// the two must agree.
	if set.thumbBit != 0 && call.Base&set.thumbBit != ra&set.thumbBit {
		return "in the other instruction set than the PUBLIC symbol " + call.Name
	}
	return ""
}
