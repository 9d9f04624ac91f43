package arm64

import (
	"encoding/binary"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/internal/rawregs"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/internal/retaddr"
)

// Walker is the arm64 walker.Arch. In Breakpad mode (walker.Env.Mode) it
// is restricted to Breakpad's methods and rules.
type Walker struct{}

// New returns an arm64 walker.
func New() walker.Arch { return &Walker{} }

const (
	regFP = minidump.ARM64FP
	regLR = minidump.ARM64LR
	regSP = minidump.ARM64SP
	regPC = minidump.ARM64PC
	nRegs = 33
)

// cfiRegs maps the context to the names dump_syms writes in STACK CFI:
// x19–x29 are callee-saved (AAPCS64).
var cfiRegs = []walker.CFIRegister{
	{Index: 0, Name: "x0"}, {Index: 1, Name: "x1"},
	{Index: 2, Name: "x2"}, {Index: 3, Name: "x3"},
	{Index: 4, Name: "x4"}, {Index: 5, Name: "x5"},
	{Index: 6, Name: "x6"}, {Index: 7, Name: "x7"},
	{Index: 8, Name: "x8"}, {Index: 9, Name: "x9"},
	{Index: 10, Name: "x10"}, {Index: 11, Name: "x11"},
	{Index: 12, Name: "x12"}, {Index: 13, Name: "x13"},
	{Index: 14, Name: "x14"}, {Index: 15, Name: "x15"},
	{Index: 16, Name: "x16"}, {Index: 17, Name: "x17"},
	{Index: 18, Name: "x18"}, {Index: 19, Name: "x19", CalleeSaves: true},
	{Index: 20, Name: "x20", CalleeSaves: true}, {Index: 21, Name: "x21", CalleeSaves: true},
	{Index: 22, Name: "x22", CalleeSaves: true}, {Index: 23, Name: "x23", CalleeSaves: true},
	{Index: 24, Name: "x24", CalleeSaves: true}, {Index: 25, Name: "x25", CalleeSaves: true},
	{Index: 26, Name: "x26", CalleeSaves: true}, {Index: 27, Name: "x27", CalleeSaves: true},
	{Index: 28, Name: "x28", CalleeSaves: true}, {Index: 29, Name: "x29", CalleeSaves: true},
	{Index: 30, Name: "x30"},
	{Index: regSP, Name: "sp", Alt: ".cfa"},
	{Index: regPC, Name: "pc", Alt: ".ra"},
}

// regs is the raw register array Breakpad's frame holds (see
// walker/internal/rawregs).
type regs = [nRegs]uint64

func raw(f *walker.Frame) *regs { return rawregs.Of[regs](f) }

func newFrame(w *walker.Walker, ctx minidump.Context, trust walker.Trust, r regs) *walker.Frame {
	return rawregs.NewFrame(w, ctx, trust, r)
}

// Caller implements walker.Arch: the rules of the table chosen from the
// mode (rules.go), in order, then the mode's stop rule.
func (a *Walker) Caller(w *walker.Walker, scanAllowed bool) *walker.Frame {
	last := w.Last()
	if last == nil || w.Env.Memory == nil {
		return nil
	}
	if last.Trust == walker.TrustContext {
		// Breakpad strips LR when it builds the context frame; the frame
		// is printed after the walk, so doing it here shows the same.
		if lr, ok := last.Context.Index(regLR); ok {
			s := a.strip(w, lr)
			last.Context.SetIndex(regLR, s)
			raw(last)[regLR] = s
		}
	}
	m := modeOf(w.Env)
	s := step{a: a, last: last, scanAllowed: scanAllowed}
	f := m.rules.Try(w, s)
	if f == nil || f.Trust == walker.TrustSignal {
		return f // a signal frame's Instruction is the interrupted one
	}
	pc := raw(f)[regPC]
	if m.stop(pc, raw(f)[regSP], raw(last)[regSP], last, f) {
		return w.Stopped(f, m.stopWhy)
	}
	f.Instruction = pc - 4 // arm64 instructions are 4 bytes: the call itself
	if m.sigreturnLookup && isTrampolineFrame(w, f) {
		f.Instruction = pc
	}
	return f
}

// terminate is the stop rule of the extended walker: Breakpad's, except that
// an unchanged SP is accepted only when the PC changes and the step is the
// return of a context frame (a leaf) or a CFI row at a function entry, as in
// rust-minidump; a frame-pointer step must strictly advance.
func terminate(pc, sp, lastSP uint64, last, f *walker.Frame) bool {
	if pc < walker.MinCallerIP {
		return true
	}
	if sp < lastSP {
		return true
	}
	if sp == lastSP {
		lastPC, _ := last.Context.Index(regPC)
		leaf := exact(last) || f.Trust == walker.TrustCFI
		return pc == lastPC || !leaf
	}
	return false
}

// mask returns the pointer-authentication mask and whether it applies.
// It asks the mode itself, not its rule table: every rule of both tables
// strips pointers (docs/design.md, "Caller rules").
func (a *Walker) mask(w *walker.Walker) uint64 {
	mods := w.Env.Modules.Sorted()
	if w.Breakpad() {
		if len(mods) == 0 {
			return ^uint64(0)
		}
		last := mods[len(mods)-1]
		return smear(last.Base + last.Size)
	}
	highest := uint64(1)<<47 - 1 // Apple's default 17/47 split
	if len(mods) > 0 {
		last := mods[len(mods)-1]
		if end := last.Base + last.Size; end > highest && end >= last.Base {
			highest = end
		}
	}
	return smear(highest)
}

// smear sets every bit below the highest set bit of v.
func smear(v uint64) uint64 {
	v |= v >> 1
	v |= v >> 2
	v |= v >> 4
	v |= v >> 8
	v |= v >> 16
	v |= v >> 32
	return v
}

// strip removes pointer-authentication bits from a code or frame pointer.
// Breakpad keeps the original value unless the stripped one is in a module
// (the mode asked here, as in mask).
func (a *Walker) strip(w *walker.Walker, p uint64) uint64 {
	s := p & a.mask(w)
	if w.Breakpad() && w.ModuleAt(s) == nil {
		return p
	}
	return s
}

// byCFI unwinds last by its CFI rules; extended: at the sp last's own
// record shows (recordSP), and with the caller's x29 and x30 stripped of
// pointer-authentication bits as well as its pc.
func (a *Walker) byCFI(w *walker.Walker, last *walker.Frame, rules symfile.CFIRules, extended bool) *walker.Frame {
	if sp, ok := recordSP(last, rules, extended); ok {
		// A copy: the frame keeps the sp it was found with.
		at := *last
		at.Context.SetIndex(regSP, sp)
		w.Found("sp %#x from x29 %#x: its CFI saves x29 there; the record gave %#x", sp, raw(last)[regFP], raw(last)[regSP])
		last = &at
	}
	ctx, ok := w.CallerByCFI(rules, last, cfiRegs)
	if !ok {
		return nil
	}
	if _, ok := ctx.Index(regPC); !ok {
		return nil
	}
	if _, ok := ctx.Index(regSP); !ok {
		return nil
	}
	pc, _ := ctx.Index(regPC)
	ctx.SetIndex(regPC, a.strip(w, pc))
	if extended {
		for _, r := range []int{regLR, regFP} {
			if v, ok := ctx.Index(r); ok {
				ctx.SetIndex(r, a.strip(w, v))
			}
		}
	}
	return newFrame(w, ctx, walker.TrustCFI, rawregs.FromContext[regs](ctx))
}

// byLeafReturn handles a context frame whose function has not pushed a frame
// record: its caller's PC is LR and SP, x29 and x19–x28 are unchanged.
// It applies only when the evidence says the frame record at x29 is not this
// function's: LR holds a plausible return address outside this function, and
// the record's saved LR differs from it (a function that has pushed its record
// saved the LR it was entered with).
func (a *Walker) byLeafReturn(w *walker.Walker, last *walker.Frame) *walker.Frame {
	lr, lrOK := last.Context.Index(regLR)
	sp, spOK := last.Context.Index(regSP)
	pc, _ := last.Context.Index(regPC)
	if !lrOK || !spOK || lr < walker.MinCallerIP || lr == pc || w.ModuleAt(lr-4) == nil {
		// (LR need not lie in a function of the symbol file: functions it
		// leaves out return there too.)
		w.Reject(walker.RuleLeafReturn, "lr %#x is no return address into a module", lr)
		return nil
	}
	if retaddr.SameFunction(w, pc, lr-4) {
		w.Reject(walker.RuleLeafReturn, "lr %#x returns into this function: it has made calls", lr)
		return nil // LR is a return address inside this function: it has made calls
	}
	below := ^uint64(0) // where a confirmed return address may lie: under the record
	if fp, ok := last.Context.Index(regFP); ok && fp >= sp {
		below = fp
	}
	if retaddr.ReturnRejected(w, last, lr, sp, below, a.mask(w), scanArch) {
		w.Reject(walker.RuleLeafReturn, "the call site before lr %#x shows it is no return from this function", lr)
		return nil // the dump's code shows LR is no return from this function
	}
	if w.ModuleAt(pc) == w.ModuleAt(lr-4) && !retaddr.FunctionKnown(w, pc) && !retaddr.FunctionKnown(w, lr-4) {
		// Without symbols a stale LR pointing back into this function cannot
		// be told from a caller in the same module: leave it to the record.
		// (When a symbol names LR's function but none this one's, the two
		// differ.)
		w.Reject(walker.RuleLeafReturn, "without symbols lr %#x may point back into this function", lr)
		return nil
	}
	if fp, ok := last.Context.Index(regFP); ok && fp >= sp {
		if saved, ok := w.ReadUint64(fp + 8); ok && a.strip(w, saved) == lr {
			w.Reject(walker.RuleLeafReturn, "the record at x29 %#x holds lr: it is this function's", fp)
			return nil // the record at x29 holds this LR: it is this function's
		}
	}
	ctx := minidump.NewContext(last.Context.Arch)
	for i := 19; i <= regFP; i++ {
		if v, ok := last.Context.Index(i); ok {
			ctx.SetIndex(i, v)
		}
	}
	ctx.SetIndex(regSP, sp)
	ctx.SetIndex(regPC, lr)
	r := *raw(last)
	r[regPC], r[regSP] = lr, sp
	return newFrame(w, ctx, walker.TrustLeaf, r)
}

// byFramePointer follows the frame record at x29: [x29] is the caller's x29,
// [x29+8] its return address. The record must lie at or above SP and the
// caller's record above this one (or be 0, the end of the chain).
func (a *Walker) byFramePointer(w *walker.Walker, last *walker.Frame) *walker.Frame {
	fp, callerFP, callerPC, ok := a.recordAt(w, last)
	if !ok {
		w.Reject(walker.RuleFrameRecord, "no frame record at x29 in the stack")
		return nil
	}
	if callerFP != 0 && callerFP <= fp {
		w.Reject(walker.RuleFrameRecord, "record at x29 %#x: saved x29 %#x does not lie above it", fp, callerFP)
		return nil
	}
	if callerPC < walker.MinCallerIP || callerPC > 0x000fffffffffffff {
		w.Reject(walker.RuleFrameRecord, "record at x29 %#x: return address %#x is no code address", fp, callerPC)
		return nil
	}
	sp, _ := last.Context.Index(regSP) // recordAt checked it
	if retaddr.ReturnRejected(w, last, callerPC, sp, fp, a.mask(w), scanArch) ||
		keepsNoRecord(w, last) && retaddr.CallSiteContradicts(w, last, callerPC, scanArch) {
		// The dump's code shows the record's return address follows no
		// call, or a call to another function while a return address
		// below the record follows a call to this one: the record is its
		// caller's (a function that has not pushed its own), or junk. (A
		// tail call also leaves a return address after a call to another
		// function, with nothing confirmed below it.)
		w.Reject(walker.RuleFrameRecord, "record at x29 %#x: the call site before return address %#x shows it is not this function's", fp, callerPC)
		return nil
	}
	if w.ModuleAt(callerPC-4) == nil {
		// Code outside every module (JIT) is accepted only when the chain
		// goes on into a module: a record at the end of the stack that
		// points nowhere is junk.
		if callerFP == 0 || callerFP > ^uint64(0)-16 {
			return nil
		}
		next, ok := w.ReadUint64(callerFP + 8)
		if !ok || w.ModuleAt(a.strip(w, next)-4) == nil {
			return nil
		}
	}
	ctx := minidump.NewContext(last.Context.Arch)
	ctx.SetIndex(regPC, callerPC)
	ctx.SetIndex(regSP, fp+16)
	ctx.SetIndex(regFP, callerFP)
	var r regs
	r[regPC], r[regSP], r[regFP] = callerPC, fp+16, callerFP
	w.Found("record at x29 %#x", fp)
	// The caller's LR is what its own record saved (as rust-minidump), so
	// that a CFI row reading x30 can be evaluated for it.
	if callerFP != 0 && callerFP <= ^uint64(0)-16 {
		if lr, ok := w.ReadUint64(callerFP + 8); ok {
			r[regLR] = a.strip(w, lr)
			ctx.SetIndex(regLR, r[regLR])
		}
	}
	return newFrame(w, ctx, walker.TrustFramePointer, r)
}

// keepsNoRecord reports whether the dump's code shows that f's function
// keeps no frame record: its first instruction other than a hint (NOP,
// BTI, PACIASP: up to four are skipped) is there and is none of what a
// function that saves x29 and x30 may begin with (a store with SP as base,
// an add or sub to SP or x29). The record at x29 is then a caller's, and
// one whose return address follows a direct call to another function is
// not f's even when nothing below it is confirmed (a tail call into a
// function that keeps a record leaves the same call site). False when
// unknown.
func keepsNoRecord(w *walker.Walker, f *walker.Frame) bool {
	if !w.HasCode() || f.Function == "" {
		return false
	}
	for i := uint64(0); i < 5; i++ {
		var b [4]byte
		if !w.ReadCode(f.FunctionBase+4*i, b[:]) {
			return false
		}
		ins := binary.LittleEndian.Uint32(b[:])
		rn, rd := ins>>5&31, ins&31
		switch {
		case ins&0xfffff01f == 0xd503201f: // HINT (NOP, PACIASP, BTI, ...)
			continue
		case ins>>27&7 == 5 && ins>>25&1 == 0 && ins>>22&1 == 0 && rn == 31: // STP ..., [sp...]
			return false
		case ins>>27&7 == 7 && ins>>22&3 == 0 && rn == 31: // STR/STUR ..., [sp...]
			return false
		case ins&0x1f000000 == 0x11000000 && (rd == 31 || rd == 29): // ADD/SUB (immediate) to sp or x29
			return false
		}
		return true
	}
	return false
}

// recordAt reads the frame record at last's x29: the saved x29 and return
// address, pointer-authentication bits stripped. ok is false when x29
// cannot point at a record (zero, misaligned, below SP) or the stack lacks
// it.
func (a *Walker) recordAt(w *walker.Walker, last *walker.Frame) (fp, savedFP, savedLR uint64, ok bool) {
	fp, fpOK := last.Context.Index(regFP)
	sp, spOK := last.Context.Index(regSP)
	if !fpOK || !spOK || fp == 0 || fp%8 != 0 || fp < sp || fp > ^uint64(0)-16 {
		return 0, 0, 0, false
	}
	savedFP, ok1 := w.ReadUint64(fp)
	savedLR, ok2 := w.ReadUint64(fp + 8)
	if !ok1 || !ok2 {
		return 0, 0, 0, false
	}
	return fp, a.strip(w, savedFP), a.strip(w, savedLR), true
}

// framelessCaller looks for the caller of last when the frame-pointer step
// found nothing, as when x29 points at a record that ends the chain. A
// function without CFI that did not set up x29 (frameless; it may save and
// restore it) leaves x29 holding its caller's frame pointer, so the record
// is the caller's (or an outer frame's): when it ends the chain, the walk
// would stop, and a plain scan may take a stale word first. The caller's own
// return address, saved by the frameless function, lies on the stack between
// last's SP and the record. A word there is taken as that return address
// when its function's CFI, unwound from just above the word, lands exactly
// on the record: its CFA is the record's end, its return address and x29
// are the ones the record saved. A word whose CFI unwinds plausibly but
// elsewhere is a frame of its own below the record's owner: the scan takes
// it from there. (Replacing a record the frame-pointer step accepted this
// way loses frames: every arm64 frame keeps x29 and x30 at its top, so a
// stale word whose function's frame has the right size lands on any record.)
// The frame is a scanned one.
func (a *Walker) framelessCaller(w *walker.Walker, last *walker.Frame) *walker.Frame {
	fp, savedFP, savedLR, ok := a.recordAt(w, last)
	if !ok {
		return nil
	}
	sp, _ := last.Context.Index(regSP) // recordAt checked it
	mask := a.mask(w)
	end := min(fp+8, sp+8*uint64(retaddr.ScanWords(w, last))) // as far as the scan would look
	for loc := sp; loc < end; loc += 8 {
		v, ok := w.ReadUint64(loc)
		if !ok {
			return nil
		}
		c := retaddr.NewCandidate(w, last, scanArch, mask, loc, v)
		ra := c.RA
		// A word after a call to another function may be a tail call's
		// return address: skipped only when a confirmed one lies here too.
		if ra < walker.MinCallerIP || !w.InstructionSeemsValid(ra-4) || c.SymbolObjection() != "" ||
			retaddr.ReturnRejected(w, last, ra, sp, end, mask, scanArch) {
			continue
		}
		ctx := minidump.NewContext(last.Context.Arch)
		ctx.SetIndex(regPC, ra)
		ctx.SetIndex(regSP, loc+8)
		ctx.SetIndex(regFP, fp) // the frameless callee left x29 alone
		cand := &walker.Frame{Instruction: ra - 4, Context: ctx}
		rules, ok := w.CFIRules(cand)
		if !ok {
			continue
		}
		caller, ok := w.CallerByCFI(rules, cand, cfiRegs)
		if !ok {
			continue
		}
		cpc, pcOK := caller.Index(regPC)
		csp, spOK := caller.Index(regSP)
		cfp, fpOK := caller.Index(regFP)
		if !pcOK || !spOK || !fpOK || a.strip(w, cpc) != savedLR || csp != fp+16 || a.strip(w, cfp) != savedFP {
			if c.CallerConsistent(caller) {
				return nil // a frame of its own below the record's owner: leave it to the scan
			}
			continue
		}
		var r regs
		r[regPC], r[regSP], r[regFP] = ra, loc+8, fp
		w.Found("word at %#x = %#x unwinds by CFI to the record at %#x", loc, ra, fp)
		return newFrame(w, ctx, walker.TrustScan, r)
	}
	return nil
}

// byFramePointerBreakpad is Breakpad's GetCallerByFramePointer: the caller's
// PC is the callee's LR register (raw, whatever its validity), after
// correcting LR from the previous frame record when LR is not valid.
func (a *Walker) byFramePointerBreakpad(w *walker.Walker, last *walker.Frame) *walker.Frame {
	lr := raw(last)
	if _, ok := last.Context.Index(regLR); !ok {
		a.correctLR(w, last)
	}
	lastFP := lr[regFP]
	var callerFP, callerLR uint64
	if lastFP != 0 {
		var ok bool
		if callerFP, ok = w.ReadUint64(lastFP); !ok {
			return nil
		}
		if callerLR, ok = w.ReadUint64(lastFP + 8); !ok {
			return nil
		}
	}
	callerLR = a.strip(w, callerLR)
	callerSP := lr[regSP]
	if lastFP != 0 {
		callerSP = lastFP + 16
	}
	ctx := minidump.NewContext(last.Context.Arch)
	r := *lr
	r[regFP], r[regSP], r[regPC], r[regLR] = callerFP, callerSP, lr[regLR], callerLR
	for _, i := range []int{regPC, regLR, regFP, regSP} {
		ctx.SetIndex(i, r[i])
	}
	return newFrame(w, ctx, walker.TrustFramePointer, r)
}

// correctLR is Breakpad's CorrectRegLRByFramePointer: when the frame before
// last has a frame record whose saved x29 equals last's x29, the record's
// saved LR becomes last's (raw) LR.
func (a *Walker) correctLR(w *walker.Walker, last *walker.Frame) {
	frames := w.Frames()
	r := raw(last)
	if len(frames) < 2 || r[regFP] <= r[regSP] {
		return
	}
	prev := raw(frames[len(frames)-2])
	prevFP := prev[regFP]
	var savedFP uint64
	if prevFP != 0 {
		v, ok := w.ReadUint64(prevFP)
		if !ok {
			return
		}
		savedFP = v
	}
	if r[regFP] != savedFP {
		return
	}
	var savedLR uint64
	if prevFP != 0 {
		v, ok := w.ReadUint64(prevFP + 8)
		if !ok {
			return
		}
		savedLR = v
	}
	r[regLR] = a.strip(w, savedLR)
}

// scanArch describes ARM64 to the shared scan.
var scanArch = retaddr.Arch{WordSize: 8, CallOffset: 4, PC: regPC, SP: regSP, CFIRegs: cfiRegs}

// byScan scans for a return address. The extended scan (validated) strips
// pointer-authentication bits first: arm64e saves signed return addresses,
// which Breakpad's scan never recognises. When the word it takes is the
// return-address slot of the record at x29 (which the frame-pointer step
// rejected, e.g. for its call site), the caller's x29 is the one the
// record saved: the caller's CFI may need it (.cfa: x29 16 +).
func (a *Walker) byScan(w *walker.Walker, last *walker.Frame, validated bool) *walker.Frame {
	mask := ^uint64(0)
	if validated {
		mask = a.mask(w)
	}
	loc, pc, ok := retaddr.Scan(w, last, raw(last)[regSP], retaddr.ScanWords(w, last), mask, scanArch, retaddr.ScanChecks(validated))
	if !ok {
		if w.Tracing() { // boxing the arguments allocates
			w.Reject(walker.RuleScan, "no candidate from %#x", raw(last)[regSP])
		}
		return nil
	}
	if w.Tracing() { // boxing the arguments allocates
		w.Found("word at %#x = %#x", loc, pc)
	}
	sp := loc + 8 // Breakpad's
	ctx := minidump.NewContext(last.Context.Arch)
	ctx.SetIndex(regPC, pc)
	if validated {
		// A caller with CFI unwinds from its sp, which AAPCS64 keeps
		// 16-byte aligned (the scan's CFI check used that sp): x30 saved
		// by `str x30, [sp, #-16]!` lies 16 bytes below it, not 8.
		// Without CFI Breakpad's sp stays, so that a scan from a stale
		// candidate still meets the word above it.
		if _, ok := w.CFIRules(&walker.Frame{Instruction: pc - 4, Context: ctx}); ok {
			sp = retaddr.CallerSP(last.Context.Arch, loc)
		}
	}
	ctx.SetIndex(regSP, sp)
	r := *raw(last) // Breakpad copies the callee's registers, marking only pc and sp valid
	r[regPC], r[regSP] = pc, sp
	if validated {
		if fp, savedFP, _, ok := a.recordAt(w, last); ok && loc == fp+8 && (savedFP == 0 || savedFP > fp) {
			ctx.SetIndex(regFP, savedFP)
			r[regFP] = savedFP
		}
	}
	f := newFrame(w, ctx, walker.TrustScan, r)
	f.Rule = retaddr.ScanRule(w, last, pc, validated)
	return f
}
