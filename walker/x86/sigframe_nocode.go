package x86

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// The selectors a Linux kernel gives a 32-bit process (arch/x86/include/
// asm/segment.h): __USER_CS 0x73 and __USER_DS 0x7b on an i386 kernel,
// __USER32_CS 0x23 and __USER32_DS 0x2b on x86_64.
func userCS(v uint32) bool { v &= 0xffff; return v == 0x73 || v == 0x23 }
func userDS(v uint32) bool { v &= 0xffff; return v == 0x7b || v == 0x2b }

// Words of the ia32 sigcontext (arch/x86/include/uapi/asm/sigcontext.h
// struct sigcontext_32) read to validate a frame found by layout alone.
const (
	scES, scDS, scESP, scEIP, scCS, scSS = 2, 3, 7, 14, 15, 18
	scStrictLen                          = 19
)

// bySignalLayout finds the kernel's signal frame above a trampoline frame
// whose code the dump lacks (walker.MaybeSigreturnWithoutCode), by its
// layout alone, with evidence that a frame of ordinary code does not
// hold: the signal number (1-64) at esp; for an rt_sigframe, the pinfo
// and puc pointers equal to esp+12 and esp+140 (the siginfo and the
// ucontext right after them); for a sigframe, the selectors the kernel
// saved equal to a user code and data segment (cs, ss, ds, es); and in
// both, the saved esp above the signal frame in the stack memory and the
// saved eip in a module.
func bySignalLayout(w *walker.Walker, last *walker.Frame, why string) *walker.Frame {
	esp := reg(last, minidump.X86ESP)
	sig, ok := w.ReadUint32(uint64(esp))
	if !ok || sig == 0 || sig > 64 {
		w.Reject(walker.RuleSignal, "%s; no signal number at esp %#x (%#x)", why, esp, sig)
		return nil
	}
	sc, kind := esp+4, "sigframe"
	pinfo, ok1 := w.ReadUint32(uint64(esp) + 4)
	puc, ok2 := w.ReadUint32(uint64(esp) + 8)
	if ok1 && ok2 && pinfo == esp+12 && puc == esp+rtSigframeUC {
		sc, kind = puc+ucSigcontext, "rt_sigframe"
	}
	var words [scStrictLen]uint32
	for i := range words {
		v, ok := w.ReadUint32(uint64(sc) + 4*uint64(i))
		if !ok {
			w.Reject(walker.RuleSignal, "%s; no %s at esp %#x in the stack", why, kind, esp)
			return nil
		}
		words[i] = v
	}
	savedESP, savedEIP := words[scESP], words[scEIP]
	_, inStack := w.ReadUint32(uint64(savedESP))
	switch {
	case !userCS(words[scCS]) || !userDS(words[scSS]) || !userDS(words[scDS]) || !userDS(words[scES]):
		w.Reject(walker.RuleSignal, "%s; no %s at esp %#x: selectors cs %#x ss %#x ds %#x es %#x", why, kind, esp,
			words[scCS]&0xffff, words[scSS]&0xffff, words[scDS]&0xffff, words[scES]&0xffff)
		return nil
	case !inStack || savedESP <= sc:
		w.Reject(walker.RuleSignal, "%s; no %s at esp %#x: saved esp %#x not above it in the stack", why, kind, esp, savedESP)
		return nil
	case w.ModuleAt(uint64(savedEIP)) == nil:
		w.Reject(walker.RuleSignal, "%s; no %s at esp %#x: saved eip %#x in no module", why, kind, esp, savedEIP)
		return nil
	}
	ctx := minidump.NewContext(last.Context.Arch)
	for _, r := range sigcontextRegs {
		ctx.SetIndex(r.reg, uint64(words[r.word]))
	}
	w.NoteSignalFrame(uint64(esp), uint64(sc)+4*sigcontextLen)
	w.Found("%s; the kernel's %s at esp %#x by its layout (signal %d, cs %#x ss %#x): eip %#x esp %#x",
		why, kind, esp, sig, words[scCS]&0xffff, words[scSS]&0xffff, savedEIP, savedESP)
	return w.NewFrame(walker.Frame{Instruction: uint64(savedEIP), Context: ctx, Trust: walker.TrustSignal, Rule: walker.RuleSignal})
}
