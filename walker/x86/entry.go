package x86

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/internal/retaddr"
)

// Instruction bytes of a frame-pointer prologue (Intel SDM vol. 2: PUSH
// r32 is 50+rd; MOV r/m32, r32 is 89 /r and MOV r32, r/m32 8B /r, modrm
// e5 and ec for esp -> ebp; MSVC's hot-patch point is mov %edi,%edi,
// 8b ff, before the push).
var (
	pushEBP     = []byte{0x55}
	hotPatchNop = []byte{0x8b, 0xff, 0x55}
	movEBPESP   = [][]byte{{0x89, 0xe5}, {0x8b, 0xec}}
)

// byEntry recovers the caller of the context frame when it has been
// stopped before its frame exists: at the first instruction of a function
// (the start of the FUNC or PUBLIC symbol naming it, or a push %ebp in the
// dump's code) the return address is the word at esp; right after that
// push (a mov %esp,%ebp in the code, the push before it, esp holding the
// caller's ebp) it is the word above. The callee-saved registers are still
// the caller's. Following ebp would skip the caller there (ebp is still
// the caller's). Only when the word could be a return address (in a
// module, after a call instruction when the dump holds the code before
// it). Not in Breakpad mode.
func byEntry(w *walker.Walker, last *walker.Frame) *walker.Frame {
	if last.Trust != walker.TrustContext || !valid(last, minidump.X86ESP) {
		return nil
	}
	eip, esp := reg(last, minidump.X86EIP), reg(last, minidump.X86ESP)
	slot := esp
	atSymbolStart := last.Function != "" && uint32(last.FunctionBase) == eip
	switch {
	case atSymbolStart || codeIs(w, eip, pushEBP) || codeIs(w, eip, hotPatchNop):
	case (codeIs(w, eip, movEBPESP[0]) || codeIs(w, eip, movEBPESP[1])) && codeIs(w, eip-1, pushEBP):
		saved, ok := w.ReadUint32(uint64(esp))
		if !valid(last, minidump.X86EBP) || !ok || saved != reg(last, minidump.X86EBP) {
			return nil
		}
		slot = esp + 4
	default:
		w.Reject(walker.RulePrologue, "%#x is neither a function's first instruction nor after its push of the frame pointer", eip)
		return nil
	}
	ra, ok := w.ReadUint32(uint64(slot))
	if !ok || ra == 0 || !w.InstructionSeemsValid(uint64(ra-1)) || retaddr.Judge(w, last, uint64(ra)) == retaddr.NoCall {
		return nil
	}
	ctx := minidump.NewContext(last.Context.Arch)
	ctx.SetIndex(minidump.X86EIP, uint64(ra))
	ctx.SetIndex(minidump.X86ESP, uint64(slot+4))
	for _, i := range []int{minidump.X86EBP, minidump.X86EBX, minidump.X86ESI, minidump.X86EDI} {
		if v, ok := last.Context.Index(i); ok {
			ctx.SetIndex(i, v)
		}
	}
	return w.NewFrame(walker.Frame{Context: ctx, Trust: walker.TrustLeaf, Rule: walker.RulePrologue})
}

// byFramelessLeaf returns from a frameless context frame through the
// word at esp when the evidence says so (retaddr.FramelessLeaf); the
// callee-saved registers are still the caller's.
func byFramelessLeaf(w *walker.Walker, last *walker.Frame) *walker.Frame {
	if !valid(last, minidump.X86ESP) || !valid(last, minidump.X86EBP) {
		return nil
	}
	esp, ebp := reg(last, minidump.X86ESP), reg(last, minidump.X86EBP)
	ra, ok := retaddr.FramelessLeaf(w, last, uint64(esp), uint64(ebp), scanArch)
	why := "the code confirms it"
	if !ok {
		ra, why, ok = retaddr.FramelessLeafWithoutCode(w, last, uint64(esp), uint64(ebp), scanArch)
	}
	if !ok {
		w.Reject(walker.RuleLeafReturn, "the word at esp %#x is no return address the code confirms over the record at ebp %#x", esp, ebp)
		return nil
	}
	ctx := minidump.NewContext(last.Context.Arch)
	ctx.SetIndex(minidump.X86EIP, ra)
	ctx.SetIndex(minidump.X86ESP, uint64(esp+4))
	for _, i := range []int{minidump.X86EBP, minidump.X86EBX, minidump.X86ESI, minidump.X86EDI} {
		if v, ok := last.Context.Index(i); ok {
			ctx.SetIndex(i, v)
		}
	}
	w.Found("frameless: the word at esp %#x = %#x returns, the record at ebp %#x is the caller's (%s)", esp, ra, ebp, why)
	return w.NewFrame(walker.Frame{Context: ctx, Trust: walker.TrustLeaf, Rule: walker.RuleLeafReturn})
}

// scanArch describes x86 to the shared checks.
var scanArch = retaddr.Arch{WordSize: 4, CallOffset: 1, PC: minidump.X86EIP, SP: minidump.X86ESP, CFIRegs: cfiRegs}

// codeIs reports whether the dump's code at addr starts with want.
func codeIs(w *walker.Walker, addr uint32, want []byte) bool { return w.CodeIs(uint64(addr), want) }

// framelessByCode reports whether the dump's code shows that f's function
// keeps no frame pointer: a FUNC symbol names it and its first bytes are
// in the dump but are no push %ebp (nor mov %edi,%edi or endbr32 before
// one). The record at ebp is then a caller's.
func framelessByCode(w *walker.Walker, f *walker.Frame) bool {
	if f.Function == "" || f.IsPublic || f.Trust == walker.TrustContext {
		return false
	}
	var code [5]byte
	b := code[:]
	if !w.ReadCode(f.FunctionBase, b) {
		return false
	}
	switch {
	case string(b[:4]) == "\xf3\x0f\x1e\xfb": // endbr32
		return b[4] != pushEBP[0]
	case string(b[:2]) == string(hotPatchNop[:2]):
		return b[2] != pushEBP[0]
	}
	return b[0] != pushEBP[0]
}
