package arm64

import "github.com/minidump-stackwalk/minidump-stackwalk/walker"

// Words of the rt_sigframe read to validate one found by its layout alone
// (arch/arm64/kernel/signal.c setup_rt_frame: uc_flags 0, uc_link NULL,
// __save_altstack; uapi asm-generic/siginfo.h, asm/ucontext.h).
const (
	ucFlagsOff   = 128      // after the siginfo
	ucLinkOff    = 128 + 8  // uc_link
	ucSSFlagsOff = 128 + 24 // uc_stack.ss_flags, after ss_sp

	ssFlagsKnown = 1 | 2 | 1<<31 // SS_ONSTACK, SS_DISABLE, SS_AUTODISARM
)

// layoutValid checks, for a trampoline frame whose code the dump lacks
// and whose pc lies in a module (walker.MaybeSigreturnWithoutCode, named
// by why), what a frame of ordinary code does not hold at sp beside what
// sigcontextAt checks (pstate EL0, the saved sp in the stack, the FPSIMD
// record first in __reserved): the siginfo's signal number 1-64,
// uc_flags 0, uc_link 0, uc_stack's ss_flags a kernel's, and the saved pc
// in a module. note says whether to record a rejection.
func layoutValid(w *walker.Walker, sp uint64, sc sigcontext, why string, note bool) bool {
	signo, ok1 := w.ReadUint32(sp)
	flags, ok2 := w.ReadUint64(sp + ucFlagsOff)
	link, ok3 := w.ReadUint64(sp + ucLinkOff)
	ssFlags, ok4 := w.ReadUint32(sp + ucSSFlagsOff)
	var fail string
	switch {
	case !ok1 || !ok2 || !ok3 || !ok4:
		fail = "not in the stack memory"
	case signo == 0 || signo > 64:
		fail = "its siginfo names no signal"
	case flags != 0 || link != 0 || ssFlags&^ssFlagsKnown != 0:
		fail = "its uc_flags, uc_link or ss_flags are not the kernel's"
	case w.ModuleAt(sc.pc&^0xffff000000000000) == nil:
		fail = "its saved pc is in no module"
	default:
		return true
	}
	if note {
		w.Reject(walker.RuleSignal, "%s; no rt_sigframe at sp %#x: %s", why, sp, fail)
	}
	return false
}
