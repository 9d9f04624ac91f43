package amd64

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// The Linux x86-64 signal frame (the kernel's arch/x86/include/uapi
// asm/sigcontext.h and ucontext.h; qemu-user copies them). A handler
// returns into its sa_restorer, glibc's __restore_rt (`mov $15, %rax;
// syscall`: rt_sigreturn); on that return the stack pointer points at the
// ucontext of the rt_sigframe: uc_flags, uc_link, uc_stack (24 bytes),
// then the sigcontext, whose first 18 words are r8-r15, rdi, rsi, rbp,
// rbx, rdx, rax, rcx, rsp, rip, eflags, then cs, gs, fs, ss (16 bits each).
const (
	sigcontextOffset = 40
	sigcontextWords  = 19 // through cs/gs/fs/ss
	userCS           = 0x33
)

// sigcontextRegs maps the sigcontext's words to context indexes.
var sigcontextRegs = []int{
	8, 9, 10, 11, minidump.AMD64R12, minidump.AMD64R13, minidump.AMD64R14, minidump.AMD64R15,
	5, 4, minidump.AMD64RBP, minidump.AMD64RBX, 1, 0, 2, minidump.AMD64RSP, minidump.AMD64RIP,
}

// restoreRT is __restore_rt's code: mov $0xf, %rax; syscall.
var restoreRT = []byte{0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05}

// isSigreturn reports whether ip is the first byte of the rt_sigreturn
// trampoline: glibc's __restore_rt by its symbol at exactly ip, or its
// code in the dump. Only the extended rules ask (Breakpad knows no
// signal frames).
func isSigreturn(w *walker.Walker, ip uint64) bool {
	return w.NamedAt(ip, "__restore_rt") || codeIs(w, ip, restoreRT)
}

// bySignalFrame recovers the frame a signal interrupted from the signal
// frame above the trampoline frame last: every general register the
// kernel saved. The saved cs must be the 64-bit user code selector and
// the saved rsp must lie in the stack memory. The frame's instruction is
// the saved rip itself: the interrupted instruction, not a return address.
func bySignalFrame(w *walker.Walker, last *walker.Frame) *walker.Frame {
	rip, ok1 := last.Context.IP()
	rsp, ok2 := last.Context.SP()
	if !ok1 || !ok2 || last.Trust == walker.TrustContext {
		return nil
	}
	why := ""
	if !isSigreturn(w, rip) {
		var ok bool
		if why, ok = w.MaybeSigreturnWithoutCode(last); !ok {
			return nil
		}
	}
	var words [sigcontextWords]uint64
	for i := range words {
		v, ok := w.ReadUint64(rsp + sigcontextOffset + 8*uint64(i))
		if !ok {
			w.Reject(walker.RuleSignal, "no signal frame at rsp %#x in the stack", rsp)
			return nil
		}
		words[i] = v
	}
	cs := words[18] & 0xffff
	savedRSP, savedRIP := words[15], words[16]
	if _, ok := w.ReadUint64(savedRSP); cs != userCS || !ok || savedRIP < walker.MinCallerIP {
		w.Reject(walker.RuleSignal, "the signal frame at rsp %#x is not valid (cs %#x, rsp %#x, rip %#x)", rsp, cs, savedRSP, savedRIP)
		return nil
	}
	if why != "" && !layoutValid(w, rsp, words[:], why) {
		return nil
	}
	ctx := minidump.NewContext(last.Context.Arch)
	for i, idx := range sigcontextRegs {
		ctx.SetIndex(idx, words[i])
	}
	w.NoteSignalFrame(rsp, rsp+sigcontextOffset+8*sigcontextWords)
	if why != "" {
		w.Found("%s; the kernel's rt_sigframe at rsp %#x by its layout: rip %#x rsp %#x", why, rsp, savedRIP, savedRSP)
	} else {
		w.Found("the kernel's signal frame at rsp %#x: rip %#x rsp %#x", rsp, savedRIP, savedRSP)
	}
	return w.NewFrame(walker.Frame{Instruction: savedRIP, Context: ctx, Trust: walker.TrustSignal, Rule: walker.RuleSignal,
		ArchState: &state{rawRBP: words[10]}})
}
