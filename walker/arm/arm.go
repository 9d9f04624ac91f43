package arm

import (
	"encoding/binary"
	"maps"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/prologue"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/internal/rawregs"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/internal/retaddr"
)

// Walker is the ARM walker.Arch. In Breakpad mode (walker.Env.Mode) it
// is restricted to Breakpad's methods and rules.
type Walker struct{}

// New returns an ARM walker.
func New() walker.Arch { return &Walker{} }

const (
	regR7 = minidump.ARMR7
	regFP = minidump.ARMFP // r11
	regSP = minidump.ARMSP
	regLR = minidump.ARMLR
	regPC = minidump.ARMPC
	nRegs = 16

	// leafSearchWords bounds the search for a pushed LR above SP.
	leafSearchWords = 64
)

// cfiRegs maps the context to the names dump_syms writes in STACK CFI;
// r4–r11 are callee-saved (AAPCS).
var cfiRegs = []walker.CFIRegister{
	{Index: 0, Name: "r0"}, {Index: 1, Name: "r1"}, {Index: 2, Name: "r2"}, {Index: 3, Name: "r3"},
	{Index: 4, Name: "r4", CalleeSaves: true}, {Index: 5, Name: "r5", CalleeSaves: true},
	{Index: 6, Name: "r6", CalleeSaves: true}, {Index: 7, Name: "r7", CalleeSaves: true},
	{Index: 8, Name: "r8", CalleeSaves: true}, {Index: 9, Name: "r9", CalleeSaves: true},
	{Index: 10, Name: "r10", CalleeSaves: true}, {Index: 11, Name: "r11", CalleeSaves: true},
	{Index: 12, Name: "r12"},
	{Index: regSP, Name: "sp", Alt: ".cfa"},
	{Index: regLR, Name: "lr"},
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
// mode and the OS (rules.go), in order, then the mode's stop rule.
func (a *Walker) Caller(w *walker.Walker, scanAllowed bool) *walker.Frame {
	last := w.Last()
	if last == nil || w.Env.Memory == nil {
		return nil
	}
	m := modeOf(w.Env)
	s := step{last: last, scanAllowed: scanAllowed, ios: w.Env.OS == "ios"}
	f := m.rules.Try(w, s)
	if f == nil || f.Trust == walker.TrustSignal {
		return f // a signal frame's Instruction is the interrupted one
	}
	pc := raw(f)[regPC]
	if why := m.stop(pc, raw(f)[regSP], raw(last)[regSP], last, f); why != "" {
		return w.Stopped(f, why)
	}
	f.Instruction = (pc - 2) & 0xffffffff
	if m.sigreturnLookup && isTrampolineFrame(w, f) {
		f.Instruction = pc // as the symbol files give Thumb functions
	}
	return f
}

func byCFI(w *walker.Walker, last *walker.Frame, rules symfile.CFIRules) *walker.Frame {
	ctx, ok := w.CallerByCFI(rules, last, cfiRegs)
	if !ok {
		return nil
	}
	if _, ok := ctx.Index(regSP); !ok {
		return nil
	}
	if _, ok := ctx.Index(regPC); !ok {
		return nil
	}
	// A pc in data is refused by walker.CallerRules, as for every rule.
	return newFrame(w, ctx, walker.TrustCFI, rawregs.FromContext[regs](ctx))
}

// returnAddressSeemsValid checks a saved return address: the call
// instruction before it (Thumb bit cleared) must lie in a function.
func returnAddressSeemsValid(w *walker.Walker, ra uint64) bool {
	if ra < walker.MinCallerIP {
		return false
	}
	return w.InstructionSeemsValid((ra&^1 - 2) & 0xffffffff)
}

// callInModule checks a return address read from LR or a frame record,
// which the code's own conventions put there: the call before it lies in a
// module. Unlike a scanned word it need not lie in a function of the
// symbol file: functions without symbols (static functions a stripped
// symbol table leaves out) return there too.
func callInModule(w *walker.Walker, ra uint64) bool {
	return ra >= walker.MinCallerIP && w.ModuleAt((ra&^1-2)&0xffffffff) != nil
}

// byLeafReturn returns from a context frame through LR. rec is the caller
// by the frame record at r7/r11 (byFramePointer), nil when none validates.
func byLeafReturn(w *walker.Walker, last, rec *walker.Frame) *walker.Frame {
	lr, lrOK := last.Context.Index(regLR)
	sp, spOK := last.Context.Index(regSP)
	pc, _ := last.Context.Index(regPC)
	if !lrOK || !spOK || lr&^1 == pc&^1 || !callInModule(w, lr) {
		w.Reject(walker.RuleLeafReturn, "lr %#x is no return address into a module", lr)
		return nil
	}
	if retaddr.SameFunction(w, pc, (lr&^1)-2) {
		w.Reject(walker.RuleLeafReturn, "lr %#x returns into this function: it has made calls", lr)
		return nil // LR points back into this function: it has made calls since entry
	}
	below := ^uint64(0) // where a confirmed return address may lie: under the record
	if rec != nil {
		below = raw(rec)[regSP] - 8
	}
	if retaddr.ReturnRejected(w, last, lr, sp, below, ^uint64(0), scanArch) {
		w.Reject(walker.RuleLeafReturn, "the call site before lr %#x shows it is no return from this function", lr)
		return nil // the dump's code shows LR is no return from this function
	}
	ctx := minidump.NewContext(last.Context.Arch)
	callerSP := sp
	pushed := false
	// A function that pushed LR keeps it at the top of its frame, in its
	// frame record if it has one: a frame record at r7/r11 bounds the
	// search, and the same value further up is a deeper frame's return to
	// the same call site (recursion), not this function's.
	limit := sp + 4*leafSearchWords
	if rec != nil {
		limit = min(limit, raw(rec)[regSP]) // up to the record's saved LR
	}
	for i := uint64(0); sp+4*i < limit; i++ {
		v, ok := w.ReadUint32(sp + 4*i)
		if !ok {
			break
		}
		if uint64(v) == lr {
			callerSP, pushed = sp+4*i+4, true
			break
		}
	}
	if !pushed && !retaddr.FunctionKnown(w, pc) && !retaddr.FunctionKnown(w, (lr&^1)-2) && w.ModuleAt(pc) == w.ModuleAt((lr&^1)-2) {
		// Without symbols a stale LR pointing back into this function cannot
		// be told from a caller in the same module: leave it to scanning.
		// (When a symbol names LR's function but none this one's, the two
		// differ.)
		w.Reject(walker.RuleLeafReturn, "without symbols lr %#x may point back into this function", lr)
		return nil
	}
	r := *raw(last)
	if !pushed {
		// LR not pushed: the callee-saved registers are still the caller's,
		// but for those the leaf's prologue stored below the caller's sp.
		below, saved := leafPrologue(w, last, pc)
		if saved == nil && !leafCodeAtHand(w, last, pc) {
			if up, ok := leafPushesWithoutCode(w, last, lr, sp); ok {
				callerSP += up
				pushed = true // the pushed registers are unknown: none kept
			}
		}
		callerSP += uint64(below)
		for i := 4; i <= 11 && !pushed; i++ {
			v, ok := last.Context.Index(i)
			if slot, isSaved := saved[i]; isSaved {
				var word uint32
				word, ok = w.ReadUint32(callerSP - uint64(slot))
				v = uint64(word)
			}
			if ok {
				ctx.SetIndex(i, v)
				r[i] = v
			}
		}
		if below > 0 {
			w.Found("leaf prologue at %#x: sp %d bytes below the caller's, lr not saved", last.FunctionBase&^1, below)
		}
	}
	ctx.SetIndex(regSP, callerSP)
	ctx.SetIndex(regPC, lr)
	r[regSP], r[regPC] = callerSP, lr
	f := newFrame(w, ctx, walker.TrustLeaf, r)
	f.Rule = walker.RuleLeafReturn
	return f
}

// regName names a frame-pointer register in trace notes.
// leafPrologue reads, in the dump's code, the prologue of the context
// frame's function, a leaf that did not push LR, from the start its symbol
// gives up to pc: such a leaf may still store callee-saved registers below
// the caller's sp (glibc's strlen: `strd r4, r5, [sp, #-8]!`). It returns
// how far below the caller's sp the leaf's sp is and the registers' slots
// (bytes below the caller's sp); nothing when the code or the start is
// missing, the analysis stops before pc, the instruction set is not
// certain, or the prologue saved LR or set up a frame pointer (the other
// rules' evidence).
func leafPrologue(w *walker.Walker, last *walker.Frame, pc uint64) (int64, map[int]int64) {
	start := last.FunctionBase &^ 1
	if last.Function == "" || start >= pc || pc-start > prologue.MaxBytes {
		return 0, nil
	}
	code := make([]byte, pc-start)
	if !w.ReadCode(start, code) {
		return 0, nil
	}
	// A Thumb symbol or pc says Thumb; else both sets are tried and must
	// read the same prologue (FUNC records and context pcs carry no
	// Thumb bit).
	sets := []prologue.Arch{prologue.Thumb, prologue.ARM}
	if last.FunctionBase&1 == 1 || pc&1 == 1 {
		sets = sets[:1]
	}
	var got *prologue.Frame
	for _, set := range sets {
		fr := prologue.Analyze(set, code, start, pc)
		if fr.Stop != "" {
			continue
		}
		if got != nil && (got.SPBelow != fr.SPBelow || !maps.Equal(got.Saved, fr.Saved)) {
			return 0, nil
		}
		got = &fr
	}
	if got == nil || got.SPBelow <= 0 || got.FPReg >= 0 {
		return 0, nil
	}
	if _, ok := got.Saved[regLR]; ok {
		return 0, nil
	}
	return got.SPBelow, got.Saved
}

// leafCodeAtHand reports whether the code of last's function from its
// start to pc is at hand (the dump's or the module file's): leafPrologue
// reads the leaf's pushes from it.
func leafCodeAtHand(w *walker.Walker, last *walker.Frame, pc uint64) bool {
	start := last.FunctionBase &^ 1
	if last.Function == "" || start >= pc || pc-start > prologue.MaxBytes {
		return false
	}
	return w.ReadCode(start, make([]byte, pc-start))
}

func regName(reg int) string {
	if reg == regR7 {
		return "r7"
	}
	return "r11"
}

// thumb reports whether f's code is Thumb, as far as its PC says.
func thumb(f *walker.Frame) bool {
	pc, _ := f.Context.Index(regPC)
	return pc&1 == 1
}

// fpOrder lists the registers that may hold last's frame pointer: the one
// matching the code's instruction set first; r7 only on iOS.
func fpOrder(last *walker.Frame, ios bool) []int {
	switch {
	case ios:
		return []int{regR7}
	case thumb(last):
		return []int{regR7, regFP}
	}
	return []int{regFP, regR7}
}

// byFramePointer follows a frame record at r7 or r11, whichever validates.
func byFramePointer(w *walker.Walker, last *walker.Frame, ios bool) *walker.Frame {
	for _, reg := range fpOrder(last, ios) {
		if f := frameRecord(w, last, reg, ios); f != nil {
			return f
		}
		if w.Tracing() && len(recordsAt(w, last, reg)) == 0 {
			v, _ := last.Context.Index(reg)
			w.Reject(walker.RuleFrameRecord, "%s %#x points at no frame record in the stack", regName(reg), v)
		}
	}
	return nil
}

// frameRecord reads a frame record at register reg of last in either layout.
func frameRecord(w *walker.Walker, last *walker.Frame, reg int, ios bool) *walker.Frame {
	sp, _ := last.Context.Index(regSP) // recordsAt checked it
	for _, rec := range recordsAt(w, last, reg) {
		if !rec.apcs && rec.savedFP != 0 && rec.savedFP <= rec.fp {
			w.Reject(walker.RuleFrameRecord, "record at %s %#x: saved frame pointer %#x does not lie above it", regName(reg), rec.fp, rec.savedFP)
			continue
		}
		if !callInModule(w, rec.savedLR) {
			w.Reject(walker.RuleFrameRecord, "record at %s %#x: return address %#x follows no call in a module", regName(reg), rec.fp, rec.savedLR)
			continue
		}
		// The scan's symbol checks (a function's first byte: a function
		// pointer; past _fini; the other instruction set than its
		// PUBLIC...): r7 and r11 are frame pointers only in code built
		// to keep records, and elsewhere hold any value, which CFI
		// restores as faithfully as a frame pointer (glibc's Thumb code
		// under .ARM.exidx CFI: r11 at a pointer to pthread_join's
		// cleanup handler on arm-threads' thread 1).
		if why := retaddr.NewCandidate(w, last, scanArch, 0xffffffff, rec.lrSlot, rec.savedLR).RecordSymbolObjection(); why != "" {
			w.Reject(walker.RuleFrameRecord, "record at %s %#x: return address %#x is none by the symbols: %s", regName(reg), rec.fp, rec.savedLR, why)
			continue
		}
		if retaddr.ReturnRejected(w, last, rec.savedLR, sp, rec.lrSlot-4, ^uint64(0), scanArch) ||
			keepsNoRecord(w, last) && retaddr.CallSiteContradicts(w, last, rec.savedLR, scanArch) {
			w.Reject(walker.RuleFrameRecord, "record at %s %#x: the call site before return address %#x shows it is not this function's", regName(reg), rec.fp, rec.savedLR)
			// (The dump's code, when it holds some, shows whether the
			// record's return address follows a call to this function;
			// the record of a frameless function's caller follows a call
			// to another one, and the frameless function's own return
			// address, pushed below the record, follows a call to it. A
			// tail call also leaves a return address after a call to
			// another function, with nothing confirmed below it.)
			continue
		}
		callerSP := rec.callerSP
		if rec.apcs {
			w.Found("APCS record at r11 %#x: lr %#x, sp %#x, fp %#x", rec.fp, rec.savedLR, rec.callerSP, rec.savedFP)
		}
		ctx := minidump.NewContext(last.Context.Arch)
		ctx.SetIndex(regPC, rec.savedLR)
		ctx.SetIndex(regSP, callerSP)
		// The caller's code decides which register is its frame pointer.
		// (iOS uses r7 in both instruction sets).
		callerReg := regFP
		if ios || rec.savedLR&1 == 1 {
			callerReg = regR7
		}
		ctx.SetIndex(callerReg, rec.savedFP)
		var r regs
		r[regPC], r[regSP], r[callerReg] = rec.savedLR, callerSP, rec.savedFP
		f := newFrame(w, ctx, walker.TrustFramePointer, r)
		f.Rule = walker.RuleFrameRecord
		return f
	}
	return nil
}

// ownAPCSRecord reports whether r11 points at last's own APCS record.
func ownAPCSRecord(w *walker.Walker, last *walker.Frame) bool {
	fp, ok1 := last.Context.Index(regFP)
	sp, ok2 := last.Context.Index(regSP)
	if !ok1 || !ok2 {
		return false
	}
	_, ok := apcsRecord(w, last, fp, sp)
	return ok
}

// keepsNoRecord reports whether the dump's code shows that f's function
// saves no frame pointer: its first instruction is there and, read as
// Thumb or (unless f's PC is Thumb or the start is not word-aligned) as
// ARM, is no push of r7 or r11 (PUSH, STMDB sp!) nor APCS's `mov ip, sp`.
// A frame record at r7/r11 is then a caller's, and one whose return address
// follows a direct call to another function is not f's even when nothing
// below it is confirmed (a tail call into a function that keeps a record
// leaves the same call site). False when unknown.
func keepsNoRecord(w *walker.Walker, f *walker.Frame) bool {
	if !w.HasCode() || f.Function == "" {
		return false
	}
	start := f.FunctionBase &^ 1 & 0xffffffff
	var b [4]byte
	if !w.ReadCode(start, b[:2]) {
		return false
	}
	const fpRegs = 1<<7 | 1<<11
	hw1 := binary.LittleEndian.Uint16(b[:2])
	switch {
	case hw1&0xfe00 == 0xb400: // PUSH {r0-r7[, lr]} (T1)
		if hw1&0x80 != 0 {
			return false
		}
	case hw1 == 0xe92d: // PUSH.W / STMDB sp!, {...} (T2)
		if !w.ReadCode(start+2, b[2:]) {
			return false
		}
		if binary.LittleEndian.Uint16(b[2:])&fpRegs != 0 {
			return false
		}
	}
	pc, _ := f.Context.Index(regPC)
	if pc&1 == 1 || start&3 != 0 {
		return true
	}
	if !w.ReadCode(start, b[:]) {
		return false
	}
	word := binary.LittleEndian.Uint32(b[:])
	if word>>28 == 0xf {
		return true
	}
	switch {
	case word&0x0fff0000 == 0x092d0000: // STMDB sp!, {...} (PUSH)
		return word&fpRegs == 0
	case word&0x0fffffff == 0x01a0c00d: // MOV ip, sp (APCS frame)
		return false
	}
	return true
}

// savedRecord is a frame record read at a frame-pointer register's value.
type savedRecord struct {
	fp               uint64 // the register's value
	lrSlot           uint64 // where the record holds LR
	savedFP, savedLR uint64 // the record's contents
	callerSP         uint64 // just above lrSlot, or an APCS record's saved SP
	apcs             bool   // an APCS record shown to be its function's own (apcsRecord)
}

// recordsAt returns the frame records that last's register reg may point
// at, in the order to try them: the saved frame pointer at the register's
// address and LR above it, then for r11 GCC's ARM-mode layout, in which r11
// points at the saved LR. None when the register cannot be a frame pointer
// (unset, zero, misaligned, below SP) or the stack lacks the record.
func recordsAt(w *walker.Walker, last *walker.Frame, reg int) []savedRecord {
	fp, ok := last.Context.Index(reg)
	sp, spOK := last.Context.Index(regSP)
	if !ok || !spOK || fp == 0 || fp%4 != 0 || fp < sp || fp > 0xffffffff-8 {
		return nil
	}
	lrSlots := []uint64{fp + 4}
	if reg == regFP && fp >= sp+4 {
		lrSlots = append(lrSlots, fp) // GCC ARM mode
	}
	if reg == regFP {
		if rec, ok := apcsRecord(w, last, fp, sp); ok {
			return []savedRecord{rec} // the other layouts would misread it
		}
	}
	var out []savedRecord
	for _, lrSlot := range lrSlots {
		savedFP, ok1 := w.ReadUint32(lrSlot - 4)
		savedLR, ok2 := w.ReadUint32(lrSlot)
		if ok1 && ok2 {
			out = append(out, savedRecord{fp: fp, lrSlot: lrSlot, savedFP: uint64(savedFP), savedLR: uint64(savedLR), callerSP: lrSlot + 4})
		}
	}
	return out
}

// apcsRecord reads the APCS frame record at fp (r11), when the evidence
// shows it is last's own. GCC's -mapcs-frame prologue is `mov ip, sp;
// [push {r0-r3};] push {..., fp, ip, lr, pc}; sub fp, ip, #4 (+16)`: fp
// points at the saved PC, the return address is at fp-4, the caller's SP
// (ip) at fp-8, the caller's fp at fp-12. It is last's own record when the
// saved PC, which the push stores as its own address + 8 (or + 12), points
// at that push in the dump's code, or without the code into last's function
// (its symbols); the saved SP lies 4 to 20 bytes above fp (the pushed
// argument registers between). ARM code only.
func apcsRecord(w *walker.Walker, last *walker.Frame, fp, sp uint64) (savedRecord, bool) {
	if thumb(last) || fp < sp+12 {
		return savedRecord{}, false
	}
	savedPC, ok1 := w.ReadUint32(fp)
	savedLR, ok2 := w.ReadUint32(fp - 4)
	savedSP, ok3 := w.ReadUint32(fp - 8)
	savedFP, ok4 := w.ReadUint32(fp - 12)
	if !ok1 || !ok2 || !ok3 || !ok4 || savedPC&3 != 0 || savedPC < 12 {
		return savedRecord{}, false
	}
	rec := savedRecord{fp: fp, lrSlot: fp - 4, savedFP: uint64(savedFP), savedLR: uint64(savedLR), callerSP: uint64(savedSP), apcs: true}
	// (The saved fp need not be a frame pointer: a caller built without
	// APCS frames keeps anything in r11.)
	if gap := rec.callerSP - fp; rec.callerSP <= fp || gap > 20 || gap%4 != 0 {
		return savedRecord{}, false
	}
	pushAt := func(addr uint64) bool {
		var b [4]byte
		if !w.ReadCode(addr, b[:]) {
			return false
		}
		// STMDB sp!, {..., fp, ip, lr, pc} (PUSH, A1), any condition.
		ins := binary.LittleEndian.Uint32(b[:])
		return ins&0x0fff0000 == 0x092d0000 && ins&0xd800 == 0xd800
	}
	var code [4]byte
	switch {
	case w.ReadCode(uint64(savedPC)-8, code[:]):
		if !pushAt(uint64(savedPC)-8) && !pushAt(uint64(savedPC)-12) {
			return savedRecord{}, false
		}
	case !retaddr.SameFunction(w, uint64(savedPC)-8, last.Instruction):
		return savedRecord{}, false
	}
	return rec, true
}

// framelessCaller looks for the caller of last when r7/r11 may point at its
// caller's frame record rather than its own. A function without CFI that
// did not set up a frame pointer (frameless) leaves r7/r11 holding its
// caller's frame pointer: following that record takes the caller's caller
// and skips the caller (and a record that ends the chain stops the walk
// early). The caller's own return address, pushed by the frameless
// function, lies on the stack between last's SP and the record. A word
// there is taken as that return address when its function's CFI, unwound
// from just above the word, lands exactly on the record: its CFA is the
// record's caller SP, its return address and frame pointer are the ones
// the record saved. A stale return address left in a frame-pointer
// function's locals cannot do that unless its frame had the same extent.
// The frame is a scanned one. Both record layouts are tried, for r7 and
// r11 in byFramePointer's order (r7 only on iOS).
func framelessCaller(w *walker.Walker, last *walker.Frame, ios bool) *walker.Frame {
	sp, ok := last.Context.Index(regSP)
	if !ok {
		return nil
	}
	for _, reg := range fpOrder(last, ios) {
		for _, rec := range recordsAt(w, last, reg) {
			if f := ownerBelow(w, last, sp, rec); f != nil {
				return f
			}
		}
	}
	return nil
}

// ownerBelow returns a scanned frame for the first word from sp up to the
// record's LR slot whose function's CFI unwinds to the record: caller SP
// just above the LR slot, return address the saved LR, r7 or r11 restored
// to the saved frame pointer. It looks as far as the scan would (a
// register may point anywhere up the stack).
func ownerBelow(w *walker.Walker, last *walker.Frame, sp uint64, rec savedRecord) *walker.Frame {
	end := min(rec.lrSlot, sp+4*uint64(retaddr.ScanWords(w, last)))
	for loc := sp; loc < end; loc += 4 {
		v, ok := w.ReadUint32(loc)
		if !ok {
			return nil
		}
		ra := uint64(v)
		// A word after a call to another function may be a tail call's
		// return address: skipped only when a confirmed one lies here too.
		c := retaddr.NewCandidate(w, last, scanArch, ^uint64(0), loc, ra)
		if !returnAddressSeemsValid(w, ra) || c.SymbolObjection() != "" ||
			retaddr.ReturnRejected(w, last, ra, sp, end, 0xffffffff, scanArch) {
			continue
		}
		ctx := minidump.NewContext(last.Context.Arch)
		ctx.SetIndex(regPC, ra)
		ctx.SetIndex(regSP, loc+4)
		// The frameless callee left the frame-pointer registers alone.
		for _, r := range []int{regR7, regFP} {
			if v, ok := last.Context.Index(r); ok {
				ctx.SetIndex(r, v)
			}
		}
		cand := &walker.Frame{Instruction: (ra&^1 - 2) & 0xffffffff, Context: ctx}
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
		if !pcOK || !spOK || cpc != rec.savedLR || csp != rec.callerSP || !restores(caller, rec.savedFP) {
			continue
		}
		r := *raw(last)
		r[regPC], r[regSP] = ra, loc+4
		w.Found("word at %#x = %#x unwinds by CFI to the record at %#x", loc, ra, rec.fp)
		f := newFrame(w, ctx, walker.TrustScan, r)
		f.Rule = walker.RuleRecordOwnerCFI
		return f
	}
	return nil
}

// restores reports whether caller, unwound by CFI, has r7 or r11 equal to
// savedFP: the function that owns a frame record restores its caller's
// frame pointer from it.
func restores(caller minidump.Context, savedFP uint64) bool {
	for _, r := range []int{regR7, regFP} {
		if v, ok := caller.Index(r); ok && v == savedFP {
			return true
		}
	}
	return false
}

// byFramePointerBreakpad is Breakpad's GetCallerByFramePointer (iOS, r7):
// PC is the callee's raw LR, LR and the frame pointer come from the record.
func byFramePointerBreakpad(w *walker.Walker, last *walker.Frame, reg int) *walker.Frame {
	if _, ok := last.Context.Index(reg); !ok {
		return nil
	}
	lr := raw(last)
	lastFP := lr[reg]
	var callerFP, callerLR uint32
	if lastFP != 0 {
		var ok bool
		if callerFP, ok = w.ReadUint32(lastFP); !ok {
			return nil
		}
		if callerLR, ok = w.ReadUint32(lastFP + 4); !ok {
			return nil
		}
	}
	callerSP := lr[regSP]
	if lastFP != 0 {
		callerSP = lastFP + 8
	}
	r := *lr
	r[reg], r[regSP], r[regPC], r[regLR] = uint64(callerFP), callerSP, lr[regLR], uint64(callerLR)
	ctx := minidump.NewContext(last.Context.Arch)
	for _, i := range []int{regPC, regLR, reg, regSP} {
		ctx.SetIndex(i, r[i])
	}
	return newFrame(w, ctx, walker.TrustFramePointer, r)
}

// scanArch describes ARM to the shared scan.
var scanArch = retaddr.Arch{WordSize: 4, CallOffset: 2, PC: regPC, SP: regSP, CFIRegs: cfiRegs}

// byScan scans for a return address. When the extended scan (validated)
// takes the return-address slot of a frame record at r7/r11 (which the
// frame-pointer step rejected, e.g. for its call site), the caller's frame
// pointer is the one the record saved: the caller's CFI may need it.
func byScan(w *walker.Walker, last *walker.Frame, validated, ios bool) *walker.Frame {
	loc, pc, ok := retaddr.Scan(w, last, raw(last)[regSP], retaddr.ScanWords(w, last), ^uint64(0), scanArch, retaddr.ScanChecks(validated))
	rule := retaddr.ScanRule(w, last, pc, validated)
	if validated {
		loc, pc, ok, rule = byStartFrame(w, last, loc, pc, ok, rule)
	}
	if !ok {
		if w.Tracing() { // boxing the arguments allocates
			w.Reject(walker.RuleScan, "no candidate from %#x", raw(last)[regSP])
		}
		return nil
	}
	if w.Tracing() && rule != walker.RuleScanEntry { // boxing the arguments allocates
		w.Found("word at %#x = %#x", loc, pc)
	}
	ctx := minidump.NewContext(last.Context.Arch)
	ctx.SetIndex(regPC, pc)
	ctx.SetIndex(regSP, loc+4)
	r := *raw(last) // Breakpad copies the callee's registers, marking only pc and sp valid
	r[regPC], r[regSP] = pc, loc+4
	if validated {
		if rec, ok := recordWithSlot(w, last, ios, loc); ok {
			// As frameRecord: the caller's code decides the register.
			callerReg := regFP
			if ios || pc&1 == 1 {
				callerReg = regR7
			}
			ctx.SetIndex(callerReg, rec.savedFP)
			r[callerReg] = rec.savedFP
		}
	}
	f := newFrame(w, ctx, walker.TrustScan, r)
	f.Rule = rule
	return f
}

// byStartFrame revises the checked scan's choice (loc, pc, ok, rule) by
// the program's entry (retaddr.StartFrame) when the scan found nothing or
// the return into the entry function (a return into a thread's start
// function, clone, is only named by the rule): it takes, with rule
// walker.RuleScanEntry, the word the start function's frame leaves below
// that return where the program ran without an interpreter, else the
// return itself, also past the scan window. Not from a frame it found
// itself: that frame is the start function's, whose caller is the entry.
func byStartFrame(w *walker.Walker, last *walker.Frame, loc, pc uint64, ok bool, rule walker.Rule) (uint64, uint64, bool, walker.Rule) {
	if c := retaddr.NewCandidate(w, last, scanArch, ^uint64(0), loc, pc); ok && !c.EntryReturn() {
		if c.ThreadStartReturn() {
			w.Found("word at %#x = %#x returns into the thread's start function (clone)", loc, pc)
			return loc, pc, ok, walker.RuleScanEntry
		}
		return loc, pc, ok, rule
	}
	if last.Rule == walker.RuleScanEntry {
		if ok {
			w.Found("word at %#x = %#x returns into the program's entry function", loc, pc)
		}
		return loc, pc, ok, walker.RuleScanEntry
	}
	l, ra, below, found := retaddr.StartFrame(w, last, raw(last)[regSP], scanArch)
	switch {
	case !found:
		return loc, pc, ok, rule
	case below:
		w.Found("word at %#x = %#x: the highest candidate below the return into the program's entry function; the program ran without an interpreter (AT_BASE 0), so the start function's frame holds no other", l, ra)
	default:
		w.Found("word at %#x = %#x returns into the program's entry function", l, ra)
	}
	return l, ra, true, walker.RuleScanEntry
}

// recordWithSlot returns the frame record at r7 or r11 (byFramePointer's
// order) whose return-address slot is at loc and whose saved frame pointer
// may be a caller's (0, or above the record).
func recordWithSlot(w *walker.Walker, last *walker.Frame, ios bool, loc uint64) (savedRecord, bool) {
	for _, reg := range fpOrder(last, ios) {
		for _, rec := range recordsAt(w, last, reg) {
			if rec.lrSlot == loc && !rec.apcs && (rec.savedFP == 0 || rec.savedFP > rec.fp) {
				return rec, true
			}
		}
	}
	return savedRecord{}, false
}
