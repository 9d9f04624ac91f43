package retaddr

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// MaxPublicOffset bounds the distance of a return address from the PUBLIC
// symbol that names it. A PUBLIC record has no size, so every address up to
// the next symbol, including data after the last function (static binaries'
// "_fini + 0x1f87a"), would otherwise seem to be code.
const MaxPublicOffset = 0x10000

// Plausible reports whether ra can be a return address, beyond Breakpad's
// test (in a module and, with symbols, in a function): ra is not the start
// of a function (a function pointer, as the comparator qsort keeps on the
// stack), and a PUBLIC-only name is near. callOffset is how far before ra
// the call instruction lies (2 on ARM, which clears the Thumb bit first; 4 on arm64).
func Plausible(w *walker.Walker, ra uint64, callOffset uint64, mask uint64) bool {
	addr := ra &^ 1 & mask
	if addr < callOffset {
		return false
	}
	at := &walker.Frame{Instruction: addr}
	w.Symbolize(at, false)
	if at.Module == nil {
		return false
	}
	if at.Function != "" && at.FunctionBase&^1 == addr {
		return false
	}
	call := &walker.Frame{Instruction: (addr - callOffset) & mask}
	w.Symbolize(call, false)
	if call.Function != "" && call.IsPublic && call.Instruction-call.FunctionBase > MaxPublicOffset {
		return false
	}
	// On ARM a PUBLIC symbol's address carries the Thumb bit of its
	// function, and a return address the instruction set of its caller:
	// the two must agree.
	if mask == 0xffffffff && call.Function != "" && call.IsPublic && call.FunctionBase&1 != ra&1 {
		return false
	}
	return true
}

// scanMasked offers pick the words from start to start+words*size
// (inclusive) whose value, with the bits outside mask cleared, less one,
// seems a valid instruction; accept (nil: every one) is the candidates'
// other test. The choice is by call site (see pick) when callee is not nil
// and the dump holds code. mask has no bits above a word of size bytes;
// on arm64 it also clears pointer-authentication signatures, which Apple's
// arm64e code puts on every return address it saves.
func scanMasked(w *walker.Walker, callee *walker.Frame, start uint64, words, size int, mask uint64, accept func(loc, ra uint64) bool) (loc, ra uint64, ok bool) {
	p := pick{useCode: callee != nil && w.HasCode()}
	for i := 0; i <= words; i++ {
		l := start + uint64(i*size)
		if l < start || l > mask {
			break
		}
		v, ok := w.ReadWord(l, size)
		if !ok {
			break
		}
		v &= mask
		cand := (v - 1) & mask
		if !w.InstructionSeemsValid(cand) { // also: inside a loaded module
			continue
		}
		if p.offer(w, callee, l, v, accept) {
			break
		}
	}
	return p.loc, p.ra, p.ok
}

// pick chooses among the candidates of a scan window, offered in order.
// Without code it takes the first one that passes the checks, as the scans
// always did. With code (useCode) it drops candidates no call instruction
// precedes, takes the first whose call site is a direct call to the
// callee's function, and otherwise the first remaining one: a real return
// address may follow a direct call to another function when that function
// tail-called the callee, or an indirect call, or code the dump lacks.
type pick struct {
	useCode bool
	loc, ra uint64
	ok      bool
}

// offer considers the candidate ra at loc; accept (nil: every one) runs
// the candidate's other tests, called only when the verdict could change
// the choice. It reports whether the choice is final.
func (p *pick) offer(w *walker.Walker, callee *walker.Frame, loc, ra uint64, accept func(loc, ra uint64) bool) (done bool) {
	if !p.useCode {
		if accept != nil && !accept(loc, ra) {
			if w.Tracing() {
				w.Reject(walker.RuleScanChecked, "word at %#x = %#x: fails the symbol or CFI checks", loc, ra)
			}
			return false
		}
		p.loc, p.ra, p.ok = loc, ra, true
		return true
	}
	v := Judge(w, callee, ra)
	switch {
	case v == NoCall:
		if w.Tracing() {
			w.Reject(walker.RuleScanAfterCall, "word at %#x = %#x: no call instruction precedes it", loc, ra)
		}
		return false
	case p.ok && v != Confirmed:
		if w.Tracing() {
			w.Reject(walker.RuleScanCallSite, "word at %#x = %#x: call site %s, the earlier candidate at %#x stays", loc, ra, v, p.loc)
		}
		return false
	case accept != nil && !accept(loc, ra):
		if w.Tracing() {
			w.Reject(walker.RuleScanChecked, "word at %#x = %#x: fails the symbol or CFI checks", loc, ra)
		}
		return false
	}
	if p.ok && w.Tracing() {
		w.Reject(walker.RuleScanAfterCall, "word at %#x = %#x: call site not confirmed, a later confirmed one replaces it", p.loc, p.ra)
	}
	p.loc, p.ra = loc, ra
	p.ok = true
	// Nothing can confirm a callee whose function is unknown: the first
	// candidate after a call is final.
	return v == Confirmed || callee.Function == ""
}

// ScanByCallSite is Breakpad's scan (walker.ScanForReturnAddress: the
// first word whose value − 1 seems a valid instruction) for the x86 and
// amd64 walkers' extended mode: when the dump holds code it chooses among
// the candidates of the whole window by their call sites as pick does,
// callee being the frame scanned from. A confirmed choice then yields to
// an earlier candidate whose own caller follows it (chainedCandidate): the
// function of the first candidate passed over is called directly at a word
// between the two, or a return address into callee's own function lies
// between them (callee is active again deeper, and the confirmed word is
// that deeper call's). Without code it is exactly Breakpad's scan.
func ScanByCallSite(w *walker.Walker, callee *walker.Frame, start uint64, words, size int) (loc, ra uint64, ok bool) {
	if !w.HasCode() || callee == nil {
		return w.ScanForReturnAddress(start, words, size)
	}
	mask := ^uint64(0)
	if size == 4 {
		mask = 0xffffffff
	}
	loc, ra, ok = scanMasked(w, callee, start&mask, words, size, mask, nil)
	if !ok {
		return confirmedBeyond(w, callee, start&mask, words, size, mask, nil)
	}
	if Judge(w, callee, ra) != Confirmed {
		return loc, ra, ok
	}
	return chainedCandidate(w, callee, start&mask, loc, ra, size)
}

// ScanRule names the rule by which a scan chose ra as callee's return
// address: Breakpad's scan (the first word that points into a function),
// a word whose call site calls callee's function, one that passed the
// extended scan's symbol and CFI checks (checked), or one whose call site
// does not rule it out.
func ScanRule(w *walker.Walker, callee *walker.Frame, ra uint64, checked bool) walker.Rule {
	switch {
	case w.Breakpad() || !checked && !w.HasCode():
		return walker.RuleScan
	case w.HasCode() && Judge(w, callee, ra) == Confirmed:
		return walker.RuleScanCallSite
	case checked:
		return walker.RuleScanChecked
	}
	return walker.RuleScanAfterCall
}

// ScanWords is the scan length from frame f: like rust-minidump, four times
// Breakpad's default from a frame recovered by CFI as well as from the
// context frame, since a trustworthy frame may well sit under a large one
// (glibc's __libc_start_call_main keeps a jmp_buf of some 300 bytes).
func ScanWords(f *walker.Frame) int {
	if f.Trust == walker.TrustContext || f.Trust == walker.TrustCFI {
		return walker.RASearchWords * 4
	}
	return walker.RASearchWords
}

// VerifyByCFI checks a scanned candidate whose function has STACK CFI by
// unwinding it one step: a stale return address left by an earlier call
// sits at the wrong depth for its function's frame, so its CFI reads junk
// as the next return address. The candidate passes when the step cannot be
// evaluated (no CFI, registers or memory missing), ends the stack (an
// address below 4096), or gives a plausible return address above it.
// ctx is the candidate frame's context (PC and SP set); regs maps the
// architecture's registers for CFI.
func VerifyByCFI(w *walker.Walker, ctx walker.Frame, regs []walker.CFIRegister, callOffset, mask uint64) bool {
	rules, ok := w.CFIRules(&ctx)
	if !ok {
		return true
	}
	caller, ok := w.CallerByCFI(rules, &ctx, regs)
	if !ok {
		return true
	}
	calleeSP, _ := ctx.Context.SP()
	return CallerPlausible(w, caller, calleeSP, callOffset, mask)
}

// CallerPlausible is VerifyByCFI's test of the caller registers that a
// candidate frame's CFI gave, for a walker that has unwound the candidate
// already; calleeSP is the candidate frame's SP.
func CallerPlausible(w *walker.Walker, caller minidump.Context, calleeSP, callOffset, mask uint64) bool {
	ra, raOK := caller.IP()
	sp, spOK := caller.SP()
	if !raOK || !spOK || ra < walker.MinCallerIP {
		return true
	}
	return sp > calleeSP && w.InstructionSeemsValid((ra-1)&mask) && Plausible(w, ra, callOffset, mask)
}

// SameFunction reports whether a and b lie in one function of one module's
// symbol file (false when unknown).
func SameFunction(w *walker.Walker, a, b uint64) bool {
	fa := &walker.Frame{Instruction: a}
	fb := &walker.Frame{Instruction: b}
	w.Symbolize(fa, false)
	w.Symbolize(fb, false)
	return fa.Module != nil && fa.Module == fb.Module && fa.Function != "" &&
		fa.Function == fb.Function && fa.FunctionBase == fb.FunctionBase
}

// FunctionKnown reports whether a symbol names the function at addr.
func FunctionKnown(w *walker.Walker, addr uint64) bool {
	f := &walker.Frame{Instruction: addr}
	w.Symbolize(f, false)
	return f.Function != ""
}

// Arch describes an architecture to ScanCaller.
type Arch struct {
	WordSize   int    // bytes in a stack word: 4 or 8
	CallOffset uint64 // how far before a return address the call lies
	PC, SP     int    // minidump.Context indexes
	CFIRegs    []walker.CFIRegister
}

// ScanCaller scans the stack from sp for the caller's return address:
// Breakpad's scan, or, when validated, the extended scan (Plausible and
// VerifyByCFI) with the bits outside mask cleared from every word, which,
// when the dump holds code (walker.Env.Code), chooses among the candidates
// of the whole window by their call sites (see pick and Judge: a word no
// call precedes is skipped, a direct call to last's function wins). It
// returns the address of the word and the return address.
func ScanCaller(w *walker.Walker, last *walker.Frame, sp uint64, validated bool, mask uint64, a Arch) (loc, ra uint64, ok bool) {
	if !validated {
		return w.ScanForReturnAddress(sp, walker.ScanWords(last), a.WordSize)
	}
	if a.WordSize == 4 {
		mask &= 0xffffffff
	}
	accept := scanAccept(w, last, mask, a)
	if loc, ra, ok = scanMasked(w, last, sp, ScanWords(last), a.WordSize, mask, accept); ok {
		return loc, ra, ok
	}
	return confirmedBeyond(w, last, sp, ScanWords(last), a.WordSize, mask, accept)
}

// confirmedBeyond continues a scan of words words from start that found
// no candidate, up to the window of a trustworthy frame (ScanWords of a
// CFI frame), taking only a word whose call site is a direct call to
// callee's function (Judge: Confirmed) and that passes accept (nil: every
// one). A function with a large frame (alloca, variable-length arrays,
// big local buffers; glibc's __libc_start_call_main keeps a jmp_buf) keeps
// its return address beyond the window of a scanned frame; a call to the
// callee's own function is the evidence that lets the search go on. Only
// with the dump's code and callee's function known.
func confirmedBeyond(w *walker.Walker, callee *walker.Frame, start uint64, words, size int, mask uint64, accept func(loc, ra uint64) bool) (loc, ra uint64, ok bool) {
	limit := walker.RASearchWords * 4
	if !w.HasCode() || callee == nil || callee.Function == "" || words >= limit {
		return 0, 0, false
	}
	for i := words + 1; i <= limit; i++ {
		l := start + uint64(i*size)
		if l < start || l > mask {
			break
		}
		v, ok := w.ReadWord(l, size)
		if !ok {
			break
		}
		v &= mask
		if !w.InstructionSeemsValid((v-1)&mask) || Judge(w, callee, v) != Confirmed || accept != nil && !accept(l, v) {
			continue
		}
		w.Found("word at %#x = %#x, past the %d-word window: a direct call to %s precedes it", l, v, words, callee.Function)
		return l, v, true
	}
	return 0, 0, false
}

// scanAccept is the extended scan's test of a candidate beyond its call
// site: Plausible and VerifyByCFI.
func scanAccept(w *walker.Walker, last *walker.Frame, mask uint64, a Arch) func(loc, ra uint64) bool {
	return func(loc, ra uint64) bool {
		if !Plausible(w, ra, a.CallOffset, mask) {
			return false
		}
		ctx := minidump.NewContext(last.Context.Arch)
		ctx.SetIndex(a.PC, ra)
		ctx.SetIndex(a.SP, loc+uint64(a.WordSize))
		return VerifyByCFI(w, walker.Frame{Instruction: (ra - a.CallOffset) & mask, Context: ctx}, a.CFIRegs, a.CallOffset, mask)
	}
}

// wordBelow reports whether a stack word from start up to end (exclusive;
// at most ScanWords(callee) words) that could be a return address (value
// − 1 seems a valid instruction, mask applied) satisfies match and passes
// the extended scan's checks (see ScanCaller).
func wordBelow(w *walker.Walker, callee *walker.Frame, start, end, mask uint64, a Arch, match func(v uint64) bool) bool {
	if a.WordSize == 4 {
		mask &= 0xffffffff
	}
	size := uint64(a.WordSize)
	if limit := start + uint64(ScanWords(callee))*size; limit > start && limit < end {
		end = limit
	}
	accept := scanAccept(w, callee, mask, a)
	for l := start; l < end && l >= start; l += size {
		v, ok := w.ReadWord(l, a.WordSize)
		if !ok {
			break
		}
		v &= mask
		if w.InstructionSeemsValid((v-1)&mask) && match(v) && accept(l, v) {
			return true
		}
	}
	return false
}

// confirmedBelow reports whether a stack word from start up to end is a
// scan candidate whose call site is confirmed for callee (Judge: a direct
// call to the start of callee's function). False without code in the dump.
func confirmedBelow(w *walker.Walker, callee *walker.Frame, start, end, mask uint64, a Arch) bool {
	if !w.HasCode() || callee == nil || callee.Function == "" {
		return false
	}
	return wordBelow(w, callee, start, end, mask, a, func(v uint64) bool { return Judge(w, callee, v) == Confirmed })
}

// ReturnRejected is the call-site rule for a return address that the
// code's own conventions put in LR or a frame record (ra as for
// CallSiteContradicts): it is rejected when no call instruction precedes
// it, and when it follows a direct call to another known function only if
// a stack word from start up to end (callee's stack below the record) is a
// confirmed return address for callee (confirmedBelow), or returns into
// the function that call targets (ownerReturnBelow). A tail call leaves a
// real return address after a call to another function, usually with
// neither below it; a frameless callee under its caller's record has
// pushed its own return address there, into the record's owner, and
// confirmed when the call was direct.
func ReturnRejected(w *walker.Walker, callee *walker.Frame, ra, start, end, mask uint64, a Arch) bool {
	if a.WordSize == 4 {
		ra &= 0xffffffff
	}
	switch Judge(w, callee, ra) {
	case NoCall:
		return true
	case Contradicted:
		return confirmedBelow(w, callee, start, end, mask, a) ||
			ownerReturnBelow(w, callee, ClassifyCallSite(w, callee.Context.Arch, ra).Target, start, end, mask, a)
	}
	return false
}

// ownerReturnBelow reports whether a stack word from start up to end
// passes the scan's checks, follows a call (or bytes the dump lacks), and
// returns into the function that starts at target: the function whose call
// the record's return address follows owns the record, and when a return
// address into it lies below the record, it called the current function,
// which keeps no record of its own there.
func ownerReturnBelow(w *walker.Walker, callee *walker.Frame, target, start, end, mask uint64, a Arch) bool {
	if a.WordSize == 4 {
		mask &= 0xffffffff
	}
	owner := &walker.Frame{Instruction: target}
	w.Symbolize(owner, false)
	if a.WordSize == 4 && (owner.Function == "" || owner.FunctionBase&^1 != target) {
		owner = &walker.Frame{Instruction: target | 1}
		w.Symbolize(owner, false)
	}
	if owner.Function == "" || owner.FunctionBase&^1 != target {
		return false
	}
	return wordBelow(w, callee, start, end, mask, a, func(v uint64) bool {
		at := &walker.Frame{Instruction: (v&^1 - a.CallOffset) & mask}
		if a.WordSize == 8 {
			at.Instruction = (v - a.CallOffset) & mask
		}
		w.Symbolize(at, false)
		return at.Module == owner.Module && at.Function == owner.Function && at.FunctionBase == owner.FunctionBase &&
			Judge(w, callee, v) != NoCall
	})
}

// FramelessLeaf decides, for a context frame last without CFI that is not
// at its function's entry, between the word at sp and the frame record at
// fp: a frameless function (a leaf built with frame pointers elsewhere, a
// syscall wrapper, hand-written assembly) leaves the frame-pointer register
// holding its caller's record, and following it skips the caller. The word
// at sp is taken as the return address when it could be one (it points
// into a function other than last's, a call precedes it) and the dump's
// code shows either that a direct call to last's function precedes it, or
// that the record's return address follows a direct call to the function
// it returns into (the record is that function's, the next frame's). A
// record whose return address follows a direct call to last's function is
// last's own: then not. ra is the word's value.
func FramelessLeaf(w *walker.Walker, last *walker.Frame, sp, fp uint64, a Arch) (ra uint64, ok bool) {
	if !w.HasCode() || last.Trust != walker.TrustContext || last.Function == "" || fp < sp {
		return 0, false
	}
	mask := ^uint64(0)
	if a.WordSize == 4 {
		mask = 0xffffffff
	}
	ra, ok1 := w.ReadWord(sp, a.WordSize)
	recRA, ok2 := w.ReadWord(fp+uint64(a.WordSize), a.WordSize)
	if !ok1 || !ok2 || ra < walker.MinCallerIP || !w.InstructionSeemsValid((ra-1)&mask) || !Plausible(w, ra, 1, mask) ||
		SameFunction(w, (ra-1)&mask, last.Instruction) {
		return 0, false
	}
	v := Judge(w, last, ra)
	if v == NoCall || Judge(w, last, recRA) == Confirmed {
		return 0, false
	}
	if v == Confirmed {
		return ra, true
	}
	caller := &walker.Frame{Instruction: (ra - 1) & mask, Context: minidump.NewContext(last.Context.Arch)}
	w.Symbolize(caller, false)
	return ra, caller.Function != "" && Judge(w, caller, recRA) == Confirmed
}
