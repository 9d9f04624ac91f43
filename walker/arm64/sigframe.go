package arm64

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// The Linux arm64 signal frame (the kernel's arch/arm64/kernel/signal.c,
// uapi asm/sigcontext.h and asm/ucontext.h; qemu-user's
// linux-user/aarch64/signal.c copies them). A handler returns into the
// vDSO's __kernel_rt_sigreturn (`mov x8, #139; svc #0`), into its
// sa_restorer, or under qemu-user into qemu's trampoline page; on that
// return sp points at the rt_sigframe: a 128-byte siginfo, then the
// ucontext: uc_flags, uc_link, uc_stack (24 bytes), uc_sigmask and padding
// to 128 bytes, then at 176 the sigcontext: fault_address, x0-x30, sp, pc,
// pstate, and at 288 (16-aligned) __reserved, whose first record is the
// FPSIMD context (magic 0x46508001). Above the frame the kernel writes a
// frame record {x29, x30} of the interrupted frame and points the
// handler's x29 at it: following it skips the interrupted pc.
const (
	scOffset     = 128 + 176 // the sigcontext from the frame's start
	scRegs       = 8         // x0 from the sigcontext's start
	scSP         = scRegs + 31*8
	scPC         = scSP + 8
	scPState     = scPC + 8
	scReserved   = 288
	fpsimdMagic  = 0x46508001
	fpsimdSize   = 528
	nrSigreturn  = 139
	pstateELMask = 0x1f // M[4] (AArch32) and M[3:0]: 0 is EL0t, user mode
)

// sigreturnCode is `mov x8, #139; svc #0` (0xd2801168, 0xd4000001 little
// endian; nrSigreturn is 139).
var sigreturnCode = []byte{0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4}

// trampolineAt reports whether pc is the first instruction of the
// rt_sigreturn trampoline: the vDSO's __kernel_rt_sigreturn by its symbol
// at exactly pc, or the trampoline's code in the dump. Only the extended
// rules ask (Breakpad knows no signal frames).
func trampolineAt(w *walker.Walker, pc uint64) bool {
	return w.NamedAt(pc, "__kernel_rt_sigreturn") || w.CodeIs(pc, sigreturnCode)
}

// sigcontext is what bySignalFrame reads of a signal frame.
type sigcontext struct {
	regs          [31]uint64
	sp, pc, state uint64
}

// sigcontextAt reads and checks the rt_sigframe at sp: it must lie in the
// stack memory, its saved pstate must be AArch64 EL0 (user mode), its saved
// sp must lie in the stack memory, and its __reserved area must begin with
// the FPSIMD record (the kernel writes it first, always). why says what
// failed.
func sigcontextAt(w *walker.Walker, sp uint64) (sc sigcontext, why string) {
	if sp > ^uint64(0)-scOffset-scReserved-8 {
		return sc, "it is not in the stack memory"
	}
	base := sp + scOffset
	read := func(off uint64) uint64 {
		v, ok := w.ReadUint64(base + off)
		if !ok {
			why = "it is not in the stack memory"
		}
		return v
	}
	for i := range sc.regs {
		sc.regs[i] = read(scRegs + 8*uint64(i))
	}
	sc.sp, sc.pc, sc.state = read(scSP), read(scPC), read(scPState)
	head := read(scReserved)
	switch {
	case why != "":
	case uint32(head) != fpsimdMagic || head>>32 != fpsimdSize:
		why = "its __reserved area does not begin with the FPSIMD record"
	case sc.state&pstateELMask != 0 || sc.state>>32 != 0:
		why = "its pstate is not user mode"
	case sc.pc < walker.MinCallerIP:
		why = "its pc is no code address"
	default:
		if _, ok := w.ReadUint64(sc.sp); !ok {
			why = "its sp is not in the stack memory"
		}
	}
	return sc, why
}

// signalFrameAt finds the signal frame of a trampoline frame f: at its sp
// when its pc is the trampoline (trampolineAt) or, for a pc outside every
// module (the vDSO or qemu's trampoline page without symbols or code), when
// the frame there validates; for a pc in the vDSO or inside a function
// without CFI whose code the dump lacks (walker.MaybeSigreturnWithoutCode),
// when it validates with the layout's further evidence (layoutValid).
// note says whether to record a rejection.
func signalFrameAt(w *walker.Walker, f *walker.Frame, note bool) (sigcontext, bool) {
	pc, ok1 := f.Context.Index(regPC)
	sp, ok2 := f.Context.Index(regSP)
	if !ok1 || !ok2 || f.Trust == walker.TrustContext {
		return sigcontext{}, false
	}
	nocode := "" // why a pc in a module may be a trampoline the dump lacks
	if !trampolineAt(w, pc) && w.ModuleAt(pc) != nil {
		at := *f
		at.Instruction = pc
		why, ok := w.MaybeSigreturnWithoutCode(&at)
		if !ok {
			return sigcontext{}, false
		}
		nocode = why
	}
	sc, why := sigcontextAt(w, sp)
	if why != "" {
		if note && nocode == "" {
			w.Reject(walker.RuleSignal, "no signal frame at sp %#x: %s", sp, why)
		}
		return sigcontext{}, false
	}
	if nocode != "" {
		if !layoutValid(w, sp, sc, nocode, note) {
			return sigcontext{}, false
		}
		if note {
			w.Found("%s; the kernel's rt_sigframe at sp %#x by its layout", nocode, sp)
		}
	}
	return sc, true
}

// bySignalFrame recovers the frame a signal interrupted from the signal
// frame above the trampoline frame last: x0-x30, sp and pc as the kernel
// saved them (pointer-authentication bits stripped from pc, lr and x29, as
// for other frames). The frame's instruction is the saved pc itself: the
// interrupted instruction, not a return address.
func (a *Walker) bySignalFrame(w *walker.Walker, last *walker.Frame) *walker.Frame {
	sc, ok := signalFrameAt(w, last, true)
	if !ok {
		return nil
	}
	var r regs
	copy(r[:31], sc.regs[:])
	r[regSP], r[regPC] = sc.sp, a.strip(w, sc.pc)
	r[regLR], r[regFP] = a.strip(w, r[regLR]), a.strip(w, r[regFP])
	ctx := minidump.NewContext(last.Context.Arch)
	for i := range r {
		ctx.SetIndex(i, r[i])
	}
	sp, _ := last.Context.Index(regSP)
	w.NoteSignalFrame(sp, sp+scOffset+scReserved+8) // sigcontextAt read it all
	w.Found("the kernel's signal frame at sp %#x: pc %#x sp %#x", sp, r[regPC], r[regSP])
	f := newFrame(w, ctx, walker.TrustSignal, r)
	f.Rule = walker.RuleSignal
	f.Instruction = r[regPC]
	return f
}

// isTrampolineFrame reports whether f, a caller just recovered, returns
// into the sigreturn trampoline: the kernel made the trampoline's first
// instruction the handler's return address, nothing called it, so the
// lookup is at pc itself.
func isTrampolineFrame(w *walker.Walker, f *walker.Frame) bool {
	pc, _ := f.Context.Index(regPC)
	if trampolineAt(w, pc) {
		return true
	}
	_, ok := signalFrameAt(w, f, false)
	return ok
}

// exact reports whether f's pc is the instruction it was executing (the
// thread's context, or a frame a signal interrupted), not a return
// address: it may be a leaf whose return address is still in lr.
func exact(f *walker.Frame) bool {
	return f.Trust == walker.TrustContext || f.Trust == walker.TrustSignal
}
