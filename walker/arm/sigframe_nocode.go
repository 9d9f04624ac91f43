package arm

import "github.com/minidump-stackwalk/minidump-stackwalk/walker"

// Words of the ucontext read to validate a signal frame found by its
// layout alone (arch/arm/kernel/signal.c setup_frame, setup_rt_frame and
// setup_sigframe; uapi asm/ucontext.h, asm/sigcontext.h).
const (
	ucLink       = 4                   // uc_link
	ucStackFlags = 12                  // uc_stack.ss_flags
	ucSigmask    = ucSigcontext + 21*4 // uc_sigmask, after the 21-word sigcontext
	scOldmask    = 2                   // the sigcontext's word of oldmask

	ssOnStack    = 1
	ssDisable    = 2
	ssAutoDisarm = 1 << 31
	ssFlagsKnown = ssOnStack | ssDisable | ssAutoDisarm
)

// layoutValid checks, for a trampoline frame whose code the dump lacks
// and whose pc lies in a module (walker.MaybeSigreturnWithoutCode, named
// by why), what a frame of ordinary code does not hold at sp beside what
// sigcontextAt checks (cpsr in user mode, the saved sp in the stack,
// uc_regspace's magic, a sigframe's uc_flags, an rt_sigframe's signal
// number): the sigcontext's oldmask equal to the first word of
// uc_sigmask (setup_sigframe writes the blocked set to both), the saved
// pc in a module, and for an rt_sigframe uc_flags 0, uc_link 0 and
// uc_stack's ss_flags a kernel's (__save_altstack). note says whether
// to record a rejection.
func layoutValid(w *walker.Walker, sp uint64, rt bool, words [scCPSR + 1]uint32, why string, note bool) bool {
	reject := func(format string, args ...any) {
		if note {
			w.Reject(walker.RuleSignal, format, args...)
		}
	}
	uc := sp
	if rt {
		uc += siginfoSize
	}
	flags, ok1 := w.ReadUint32(uc)
	link, ok2 := w.ReadUint32(uc + ucLink)
	ssFlags, ok3 := w.ReadUint32(uc + ucStackFlags)
	mask, ok4 := w.ReadUint32(uc + ucSigmask)
	kind := "sigframe"
	if rt {
		kind = "rt_sigframe"
	}
	savedPC := uint64(words[scR0+regPC])
	switch {
	case !ok1 || !ok2 || !ok3 || !ok4:
		reject("%s; no %s at sp %#x in the stack", why, kind, sp)
	case rt && (flags != 0 || link != 0 || ssFlags&^ssFlagsKnown != 0):
		reject("%s; no %s at sp %#x: uc_flags %#x, uc_link %#x, ss_flags %#x", why, kind, sp, flags, link, ssFlags)
	case words[scOldmask] != mask:
		reject("%s; no %s at sp %#x: oldmask %#x is not uc_sigmask's %#x", why, kind, sp, words[scOldmask], mask)
	case w.ModuleAt(savedPC&^1) == nil:
		reject("%s; no %s at sp %#x: saved pc %#x in no module", why, kind, sp, savedPC)
	default:
		return true
	}
	return false
}

// maybeTrampoline reports whether f, whose pc lies in a module and is no
// known trampoline, may be one whose code the dump lacks, and why.
func maybeTrampoline(w *walker.Walker, f *walker.Frame, pc uint64) (string, bool) {
	at := *f
	at.Instruction = pc // Thumb functions' symbols carry the bit
	return w.MaybeSigreturnWithoutCode(&at)
}
