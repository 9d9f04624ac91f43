package arm

import (
	"encoding/binary"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// The Linux 32-bit ARM signal frames (the kernel's arch/arm/kernel/signal.c,
// uapi asm/sigcontext.h and asm/ucontext.h; qemu-user's
// linux-user/arm/signal.c copies them). A handler returns into its
// sa_restorer: glibc's __default_sa_restorer (`mov r7, #119; svc 0`:
// sigreturn) for a handler without SA_SIGINFO, __default_rt_sa_restorer
// (`mov r7, #173; svc 0`: rt_sigreturn) with it, or, without SA_RESTORER,
// the same code in the kernel's sigpage or qemu's trampoline page. On that
// return sp points at the frame: a sigframe begins with its ucontext, an
// rt_sigframe with a 128-byte siginfo and then the ucontext. The ucontext
// holds uc_flags, uc_link, uc_stack (12 bytes), the sigcontext (trap_no,
// error_code, oldmask, r0-r10, fp, ip, sp, lr, pc, cpsr, fault_address),
// the 128-byte uc_sigmask, then uc_regspace, whose first word is the magic
// of the first coprocessor record (or 0, the end of the list).
const (
	siginfoSize     = 128
	ucSigcontext    = 20  // uc_flags, uc_link, uc_stack
	ucRegspace      = 232 // + sigcontext (84) + uc_sigmask (128)
	scR0            = 3   // the sigcontext's word of r0
	scCPSR          = scR0 + 16
	sigframeUCFlags = 0x5ac3c35a // the kernel's uc_flags in a (non-rt) sigframe; qemu writes 0

	cpsrModeMask = 0x1f
	cpsrUserMode = 0x10

	nrSigreturn   = 119
	nrRtSigreturn = 173
)

// regspaceMagic reports whether uc_regspace may begin with magic: VFP,
// iWMMXt, Crunch, the dummy padding record, or the terminating 0.
func regspaceMagic(magic uint32) bool {
	switch magic {
	case 0x56465001, 0x12ef842a, 0x5065cf03, 0xb0d9ed01, 0:
		return true
	}
	return false
}

// trampolineKind is what the code at a return address says about it.
type trampolineKind uint8

const (
	notTrampoline trampolineKind = iota
	sigreturnTrampoline
	rtSigreturnTrampoline
)

// trampolineAt reports whether pc is the first instruction of a sigreturn
// trampoline: glibc's restorer by its symbol at exactly pc, or the
// trampoline's code in the dump, in ARM, Thumb or Thumb-2 form. (The
// Thumb bit is ignored; symbol files give Thumb functions' addresses
// with it, so the lookup is at pc with it set.) Only the extended rules
// ask (Breakpad knows no signal frames).
func trampolineAt(w *walker.Walker, pc uint64) trampolineKind {
	pc &^= 1
	at := &walker.Frame{Instruction: pc | 1}
	w.Symbolize(at, false)
	if at.FunctionBase&^1 == pc {
		switch at.Function {
		case "__default_sa_restorer":
			return sigreturnTrampoline
		case "__default_rt_sa_restorer":
			return rtSigreturnTrampoline
		}
	}
	var b [8]byte
	if !w.ReadCode(pc, b[:]) && !w.ReadCode(pc, b[:6]) && !w.ReadCode(pc, b[:4]) {
		return notTrampoline
	}
	kind := func(nr uint32) trampolineKind {
		switch nr {
		case nrSigreturn:
			return sigreturnTrampoline
		case nrRtSigreturn:
			return rtSigreturnTrampoline
		}
		return notTrampoline
	}
	hw := func(i int) uint32 { return uint32(binary.LittleEndian.Uint16(b[2*i:])) }
	word := binary.LittleEndian.Uint32(b[:])
	switch {
	case hw(0)&0xff00 == 0x2700 && hw(1)&0xff00 == 0xdf00: // MOVS r7, #n; SVC (Thumb)
		return kind(hw(0) & 0xff)
	case hw(0) == 0xf04f && hw(1)&0xff00 == 0x0700 && hw(2)&0xff00 == 0xdf00: // MOV.W r7, #n; SVC (Thumb-2)
		return kind(hw(1) & 0xff)
	case pc&3 == 0 && word&0xffffff00 == 0xe3a07000 && binary.LittleEndian.Uint32(b[4:])>>24 == 0xef: // MOV r7, #n; SVC (ARM)
		return kind(word & 0xff)
	}
	return notTrampoline
}

// sigcontextAt reads and checks the signal frame a trampoline frame's sp
// points at: an rt_sigframe (rt) or a sigframe. It returns the sigcontext's
// words trap_no through cpsr. The frame must lie in the stack memory, its
// saved cpsr must be in user mode, its saved sp must lie in the stack
// memory, and its uc_regspace must begin with a known record's magic; a
// sigframe's uc_flags must be the kernel's (or qemu's 0), an
// rt_sigframe's siginfo must name a signal.
func sigcontextAt(w *walker.Walker, sp uint64, rt bool) (words [scCPSR + 1]uint32, why string) {
	uc := sp
	if rt {
		signo, ok := w.ReadUint32(sp)
		if !ok || signo == 0 || signo > 64 {
			return words, "its siginfo names no signal"
		}
		uc += siginfoSize
	}
	flags, ok1 := w.ReadUint32(uc)
	magic, ok2 := w.ReadUint32(uc + ucRegspace)
	if !ok1 || !ok2 {
		return words, "it is not in the stack memory"
	}
	if !rt && flags != 0 && flags != sigframeUCFlags {
		return words, "its uc_flags are not a sigframe's"
	}
	if !regspaceMagic(magic) {
		return words, "its uc_regspace begins with no known magic"
	}
	for i := range words {
		v, ok := w.ReadUint32(uc + ucSigcontext + 4*uint64(i))
		if !ok {
			return words, "it is not in the stack memory"
		}
		words[i] = v
	}
	if words[scCPSR]&cpsrModeMask != cpsrUserMode {
		return words, "its cpsr is not user mode"
	}
	savedSP, savedPC := words[scR0+regSP], words[scR0+regPC]
	if _, ok := w.ReadUint32(uint64(savedSP)); !ok {
		return words, "its sp is not in the stack memory"
	}
	if uint64(savedPC) < walker.MinCallerIP {
		return words, "its pc is no code address"
	}
	return words, ""
}

// frameEnd is the end of what sigcontextAt reads of the frame at sp: up
// to uc_regspace's magic.
func frameEnd(sp uint64, rt bool) uint64 {
	if rt {
		sp += siginfoSize
	}
	return sp + ucRegspace + 4
}

// signalFrameAt finds the signal frame of a trampoline frame f: by the
// trampoline's symbol or code when there is one, else, for a pc outside
// every module (the vDSO's or qemu's trampoline page without symbols or
// code), whichever frame layout validates at sp, and the end of the
// frame's words read (frameEnd). note says whether to record the
// rejections in the trace.
func signalFrameAt(w *walker.Walker, f *walker.Frame, note bool) (words [scCPSR + 1]uint32, end uint64, ok bool) {
	pc, ok1 := f.Context.Index(regPC)
	sp, ok2 := f.Context.Index(regSP)
	if !ok1 || !ok2 || f.Trust == walker.TrustContext {
		return words, 0, false
	}
	var layouts []bool // rt or not, in the order to try
	nocode := ""       // why a pc in a module may be a trampoline the dump lacks
	switch trampolineAt(w, pc) {
	case sigreturnTrampoline:
		layouts = []bool{false}
	case rtSigreturnTrampoline:
		layouts = []bool{true}
	default:
		if w.ModuleAt(pc&^1) != nil {
			why, ok := maybeTrampoline(w, f, pc)
			if !ok {
				return words, 0, false
			}
			nocode = why
		}
		layouts = []bool{true, false}
	}
	for _, rt := range layouts {
		words, why := sigcontextAt(w, sp, rt)
		if why == "" && (nocode == "" || layoutValid(w, sp, rt, words, nocode, note)) {
			if nocode != "" && note {
				w.Found("%s; the kernel's signal frame at sp %#x by its layout", nocode, sp)
			}
			return words, frameEnd(sp, rt), true
		}
		if why != "" && note && nocode == "" {
			w.Reject(walker.RuleSignal, "no signal frame at sp %#x: %s", sp, why)
		}
	}
	return words, 0, false
}

// bySignalFrame recovers the frame a signal interrupted from the signal
// frame above the trampoline frame last: r0-r15 as the kernel saved them.
// The frame's instruction is the saved pc itself: the interrupted
// instruction, not a return address.
func bySignalFrame(w *walker.Walker, last *walker.Frame) *walker.Frame {
	words, end, ok := signalFrameAt(w, last, true)
	if !ok {
		return nil
	}
	ctx := minidump.NewContext(last.Context.Arch)
	var r regs
	for i := 0; i < nRegs; i++ {
		r[i] = uint64(words[scR0+i])
	}
	for i := 0; i < nRegs; i++ {
		ctx.SetIndex(i, r[i])
	}
	sp, _ := last.Context.Index(regSP)
	w.NoteSignalFrame(sp, end)
	w.Found("the kernel's signal frame at sp %#x: pc %#x sp %#x", sp, r[regPC], r[regSP])
	f := newFrame(w, ctx, walker.TrustSignal, r)
	f.Rule = walker.RuleSignal
	f.Instruction = r[regPC] &^ 1
	return f
}

// isTrampolineFrame reports whether f, a caller just recovered, returns
// into a sigreturn trampoline: the kernel made the trampoline's first
// instruction the handler's return address, nothing called it, so the
// lookup is at pc itself.
func isTrampolineFrame(w *walker.Walker, f *walker.Frame) bool {
	pc, _ := f.Context.Index(regPC)
	if trampolineAt(w, pc) != notTrampoline {
		return true
	}
	_, _, ok := signalFrameAt(w, f, false)
	return ok
}

// exact reports whether f's pc is the instruction it was executing (the
// thread's context, or a frame a signal interrupted), not a return
// address: it may be a leaf whose return address is still in lr.
func exact(f *walker.Frame) bool {
	return f.Trust == walker.TrustContext || f.Trust == walker.TrustSignal
}
