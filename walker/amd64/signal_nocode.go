package amd64

import "github.com/minidump-stackwalk/minidump-stackwalk/walker"

// The ucontext's uc_flags the kernel may set (arch/x86/include/uapi/asm/
// ucontext.h: UC_FP_XSTATE, UC_SIGCONTEXT_SS, UC_STRICT_RESTORE_SS) and
// the 64-bit user data selector (__USER_DS) it saves as ss.
const (
	ucFlagsKnown   = 0x7
	ucSigcontextSS = 0x2
	userSS         = 0x2b
)

// layoutValid checks, for a trampoline whose code the dump lacks
// (walker.MaybeSigreturnWithoutCode, named by why), what a frame of
// ordinary code does not hold at rsp beside the user cs bySignalFrame
// checks: uc_flags with only the kernel's flags, uc_link 0, ss the user
// data selector where uc_flags says it was saved, and the saved rsp above
// the signal frame and the saved rip in a module.
func layoutValid(w *walker.Walker, rsp uint64, sc []uint64, why string) bool {
	flags, ok1 := w.ReadUint64(rsp)
	link, ok2 := w.ReadUint64(rsp + 8)
	ss := sc[18] >> 48
	savedRSP, savedRIP := sc[15], sc[16]
	switch {
	case !ok1 || !ok2 || flags&^ucFlagsKnown != 0 || link != 0:
		w.Reject(walker.RuleSignal, "%s; no rt_sigframe at rsp %#x: uc_flags %#x, uc_link %#x", why, rsp, flags, link)
	case flags&ucSigcontextSS != 0 && ss != userSS:
		w.Reject(walker.RuleSignal, "%s; no rt_sigframe at rsp %#x: saved ss %#x", why, rsp, ss)
	case savedRSP <= rsp+sigcontextOffset+8*sigcontextWords:
		w.Reject(walker.RuleSignal, "%s; no rt_sigframe at rsp %#x: saved rsp %#x not above it", why, rsp, savedRSP)
	case w.ModuleAt(savedRIP) == nil:
		w.Reject(walker.RuleSignal, "%s; no rt_sigframe at rsp %#x: saved rip %#x in no module", why, rsp, savedRIP)
	default:
		return true
	}
	return false
}
