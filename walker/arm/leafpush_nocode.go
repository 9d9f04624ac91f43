package arm

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/internal/retaddr"
)

// leafPushWords bounds how far below its caller's sp a leaf without code
// may have moved sp: r4-r11 pushed (8 words) and as many words of locals.
const leafPushWords = 16

// leafPushesWithoutCode is the leaf return's rule for a context frame
// whose function has no CFI, did not push LR, and whose code is not at
// hand (leafPrologue reads nothing): a leaf may still have pushed
// callee-saved registers (glibc's Thumb-2 strlen: `strd r4, r5, [sp,
// #-8]!`), and only its code says how far sp moved. The caller's CFI at
// LR says it instead. At the leaf's sp the caller's CFI must be refuted
// (it unwinds to a word that is no return address: below 4096 but not 0,
// in no function, or ruled out by the symbols, or to an sp not above);
// then the least of the offsets 4 to 4*leafPushWords bytes above it is
// taken at which the caller's CFI unwinds to a proven return address
// (retaddr.Candidate.Proven: its call site in the code at hand or its own
// CFI one step on, the slot taken just below the sp it gives) at a higher
// sp. A higher offset reads a frame further up, which is consistent too
// (the frames between skipped); below the true offset the caller's CFI
// reads the registers its prologue saved, not return addresses. It
// returns the offset in bytes; false when the leaf's sp is not refuted or
// no offset is proven. The pushed words are unknown registers: the
// caller's r4-r11 are then not known but for those its own CFI restores.
func leafPushesWithoutCode(w *walker.Walker, last *walker.Frame, lr, sp uint64) (uint64, bool) {
	callSite := (lr&^1 - 2) & 0xffffffff
	rules, ok := w.CFIRules(&walker.Frame{Instruction: callSite})
	if !ok || !callerRefuted(w, last, rules, lr, sp) {
		return 0, false
	}
	for k := uint64(1); k <= leafPushWords; k++ {
		if ra, ok := callerProven(w, last, rules, lr, sp+4*k); ok {
			if w.Tracing() {
				w.Found("no code of the leaf: the caller's CFI at lr %#x unwinds to the proven return address %#x with sp %d bytes higher (the leaf's pushes), the least offset that does", lr, ra, 4*k)
			}
			return 4 * k, true
		}
	}
	if w.Tracing() {
		w.Reject(walker.RuleLeafReturn, "no code of the leaf; the caller's CFI at lr %#x refuted at its sp and proven at no sp up to %d bytes higher", lr, 4*leafPushWords)
	}
	return 0, false
}

// callerAt returns the caller frame the leaf return would give with the
// caller's sp at sp: pc lr and, at the leaf's own sp (pushes 0), the
// leaf's callee-saved registers; with pushes they are unknown.
func callerAt(last *walker.Frame, lr, sp uint64, pushes bool) *walker.Frame {
	ctx := minidump.NewContext(last.Context.Arch)
	ctx.SetIndex(regPC, lr)
	ctx.SetIndex(regSP, sp)
	if !pushes {
		for i := 4; i <= 11; i++ {
			if v, ok := last.Context.Index(i); ok {
				ctx.SetIndex(i, v)
			}
		}
	}
	return &walker.Frame{Instruction: (lr&^1 - 2) & 0xffffffff, Context: ctx}
}

// callerRefuted reports whether the caller's CFI, applied with the
// caller's sp at sp, unwinds to something no frame can be: a return
// address below 4096 but not 0 (0 ends the stack), in no function or
// ruled out by the symbols, or an sp not above sp.
func callerRefuted(w *walker.Walker, last *walker.Frame, rules symfile.CFIRules, lr, sp uint64) bool {
	grand, ok := w.CallerByCFI(rules, callerAt(last, lr, sp, false), cfiRegs)
	if !ok {
		return false
	}
	ra, raOK := grand.Index(regPC)
	gsp, spOK := grand.Index(regSP)
	if !raOK || !spOK || ra == 0 {
		return false
	}
	if ra < walker.MinCallerIP || gsp <= sp || !returnAddressSeemsValid(w, ra) {
		return true
	}
	return retaddr.NewCandidate(w, last, scanArch, 0xffffffff, gsp-4, ra).SymbolObjection() != ""
}

// callerProven applies the caller's CFI with the caller's sp at sp and
// reports the return address it gives when that is proven: above sp, in a
// function, not ruled out by the symbols, and Proven.
func callerProven(w *walker.Walker, last *walker.Frame, rules symfile.CFIRules, lr, sp uint64) (uint64, bool) {
	grand, ok := w.CallerByCFI(rules, callerAt(last, lr, sp, true), cfiRegs)
	if !ok {
		return 0, false
	}
	ra, raOK := grand.Index(regPC)
	gsp, spOK := grand.Index(regSP)
	if !raOK || !spOK || ra < walker.MinCallerIP || gsp <= sp || !returnAddressSeemsValid(w, ra) {
		return 0, false
	}
	c := retaddr.NewCandidate(w, last, scanArch, 0xffffffff, gsp-4, ra)
	return ra, c.SymbolObjection() == "" && c.Proven()
}
