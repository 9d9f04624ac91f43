package prologue

import (
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// stepX86 reads one IA-32 or x86-64 instruction (decoded in full by
// x86asm, so that GCC's scheduling of moves and arithmetic among the
// pushes does not end the prologue): PUSH reg, SUB imm from the stack
// pointer, MOV of the stack pointer into the frame pointer. Branches,
// calls, returns, POP and LEAVE, pushes of memory or immediates and any
// other write to the stack pointer (a realigning AND, LEA) end it, as in
// gdb's i386_analyze_prologue and amd64_analyze_prologue.
func stepX86(f *Frame, b []byte, long bool) (int, string) {
	mode, word := 32, int64(4)
	sp, bp, first := x86asm.ESP, x86asm.EBP, x86asm.EAX
	if long {
		mode, word = 64, 8
		sp, bp, first = x86asm.RSP, x86asm.RBP, x86asm.RAX
	}
	inst, err := x86asm.Decode(b, mode)
	if err != nil {
		return 0, "cannot decode: " + err.Error()
	}
	if inst.Op == 0 { // x86asm's answer for bytes that end inside an instruction
		return 0, "truncated instruction"
	}
	dst, _ := inst.Args[0].(x86asm.Reg)
	src, _ := inst.Args[1].(x86asm.Reg)
	op := inst.Op.String()
	switch {
	case inst.Op == x86asm.PUSH:
		r, ok := inst.Args[0].(x86asm.Reg)
		if !ok || r < first || r > first+15 {
			return 0, "push of memory or an immediate"
		}
		f.push([]int{int(r - first)}, word)
	case inst.Op == x86asm.SUB && dst == sp:
		imm, ok := inst.Args[1].(x86asm.Imm)
		if !ok {
			return 0, "stack pointer changed"
		}
		f.SPBelow += int64(imm)
	case inst.Op == x86asm.MOV && dst == bp && src == sp:
		f.setFP(x86BP, 0)
	case strings.HasPrefix(op, "J") || strings.HasPrefix(op, "LOOP") || strings.Contains(op, "CALL") ||
		strings.Contains(op, "RET") || inst.Op == x86asm.POP || inst.Op == x86asm.LEAVE || inst.Op == x86asm.ENTER:
		return 0, "control flow or stack pointer raised"
	case dst == sp && inst.Op != x86asm.CMP && inst.Op != x86asm.TEST:
		return 0, "stack pointer changed"
	case dst == bp && f.FPReg == x86BP:
		f.FPReg = -1 // the frame pointer reused
	}
	return inst.Len, ""
}
