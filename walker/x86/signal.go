package x86

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// The Linux i386 signal frames (the kernel's arch/x86/include/uapi
// asm/sigcontext.h and the ia32 sigframe layouts). A handler returns
// into its sa_restorer: glibc's __restore (`pop %eax; mov $0x77, %eax;
// int $0x80`: sigreturn) for a handler without SA_SIGINFO, __restore_rt
// (`mov $0xad, %eax; int $0x80`: rt_sigreturn) with it. On that return
// esp points at the frame's sig argument; the sigcontext follows it in
// a sigframe, and in an rt_sigframe lies in the ucontext that the frame's
// puc pointer (esp+8) names, 20 bytes in. Its words: gs, fs, es, ds, edi,
// esi, ebp, esp, ebx, edx, ecx, eax, trapno, err, eip, cs, eflags.
var (
	restoreCode   = []byte{0x58, 0xb8, 0x77, 0x00, 0x00, 0x00, 0xcd, 0x80}
	restoreRTCode = []byte{0xb8, 0xad, 0x00, 0x00, 0x00, 0xcd, 0x80}
)

const (
	rtSigframeUC  = 140 // sig, pinfo, puc, 128-byte siginfo
	ucSigcontext  = 20  // uc_flags, uc_link, 12-byte uc_stack
	sigcontextLen = 16  // words read, through cs
)

// sigcontextRegs maps the sigcontext's words 4-15 to context indexes.
var sigcontextRegs = [...]struct{ word, reg int }{
	{4, minidump.X86EDI}, {5, minidump.X86ESI}, {6, minidump.X86EBP}, {7, minidump.X86ESP},
	{8, minidump.X86EBX}, {9, minidump.X86EDX}, {10, minidump.X86ECX}, {11, minidump.X86EAX}, {14, minidump.X86EIP},
}

// sigreturnKind reports whether ip is the first byte of a sigreturn
// trampoline (by its glibc symbol at exactly ip, or its code in the
// dump) and whether it is the rt one. Only the extended rules ask
// (Breakpad knows no signal frames).
func sigreturnKind(w *walker.Walker, ip uint32) (isTrampoline, rt bool) {
	at := &walker.Frame{Instruction: uint64(ip)}
	w.Symbolize(at, false)
	if at.FunctionBase == uint64(ip) {
		switch at.Function {
		case "__restore", "__kernel_sigreturn":
			return true, false
		case "__restore_rt", "__kernel_rt_sigreturn":
			return true, true
		}
	}
	switch {
	case codeIs(w, ip, restoreCode):
		return true, false
	case codeIs(w, ip, restoreRTCode):
		return true, true
	}
	return false, false
}

// bySignalFrame recovers the frame a signal interrupted from the signal
// frame above the trampoline frame last: the general registers the kernel
// saved, when the saved cs is a user code selector and the saved esp lies
// in the stack memory. The frame's instruction is the saved eip itself.
func bySignalFrame(w *walker.Walker, last *walker.Frame) *walker.Frame {
	if last.Trust == walker.TrustContext || !valid(last, minidump.X86ESP) {
		return nil
	}
	eip, esp := reg(last, minidump.X86EIP), reg(last, minidump.X86ESP)
	tramp, rt := sigreturnKind(w, eip)
	if !tramp {
		if why, ok := w.MaybeSigreturnWithoutCode(last); ok {
			return bySignalLayout(w, last, why)
		}
		return nil
	}
	sc := esp + 4
	if rt {
		puc, ok := w.ReadUint32(uint64(esp) + 8)
		if !ok || puc != esp+rtSigframeUC {
			w.Reject(walker.RuleSignal, "no rt_sigframe at esp %#x: its ucontext pointer is %#x", esp, puc)
			return nil
		}
		sc = puc + ucSigcontext
	}
	var words [sigcontextLen]uint32
	for i := range words {
		v, ok := w.ReadUint32(uint64(sc) + 4*uint64(i))
		if !ok {
			w.Reject(walker.RuleSignal, "no signal frame at esp %#x in the stack", esp)
			return nil
		}
		words[i] = v
	}
	cs, savedESP, savedEIP := words[15]&0xffff, words[7], words[14]
	if _, ok := w.ReadUint32(uint64(savedESP)); cs&3 != 3 || !ok || savedEIP < walker.MinCallerIP {
		w.Reject(walker.RuleSignal, "the signal frame at esp %#x is not valid (cs %#x, esp %#x, eip %#x)", esp, cs, savedESP, savedEIP)
		return nil
	}
	ctx := minidump.NewContext(last.Context.Arch)
	for _, r := range sigcontextRegs {
		ctx.SetIndex(r.reg, uint64(words[r.word]))
	}
	w.NoteSignalFrame(uint64(esp), uint64(sc)+4*sigcontextLen)
	w.Found("the kernel's signal frame at esp %#x: eip %#x esp %#x", esp, savedEIP, savedESP)
	return w.NewFrame(walker.Frame{Instruction: uint64(savedEIP), Context: ctx, Trust: walker.TrustSignal, Rule: walker.RuleSignal})
}
