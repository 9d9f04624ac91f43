package prologue

import (
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// stepX86 reads one IA-32 or x86-64 instruction (decoded in full by
// x86asm, so that GCC's scheduling of moves and arithmetic among the
// pushes does not end the prologue): PUSH reg, SUB imm from the stack
// pointer, MOV of the stack pointer into the frame pointer; conditional
// jumps forward (an early exit) are passed over. Other branches,
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
	case !long && inst.Op == x86asm.CALL && getsGOT(b[inst.Len:]):
		// i386 PIC: `call __x86.get_pc_thunk.bx; add $_GLOBAL_OFFSET_TABLE_,
		// %ebx` returns at once and leaves the stack as it was
	case strings.HasPrefix(op, "J") && inst.Op != x86asm.JMP && forward(inst):
		// a conditional jump forward: the prologue goes on along the
		// fall-through path (an early exit skips it)
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

// forward reports whether a relative branch goes forward.
func forward(inst x86asm.Inst) bool {
	rel, ok := inst.Args[0].(x86asm.Rel)
	return ok && rel > 0
}

// getsGOT reports whether b starts with `add $imm32, reg` (not esp), the
// instruction that follows a call of a get_pc_thunk.
func getsGOT(b []byte) bool {
	inst, err := x86asm.Decode(b, 32)
	if err != nil || inst.Op != x86asm.ADD || len(b) < 2 || b[0] != 0x81 {
		return false
	}
	r, ok := inst.Args[0].(x86asm.Reg)
	_, imm := inst.Args[1].(x86asm.Imm)
	return ok && imm && r >= x86asm.EAX && r <= x86asm.EDI && r != x86asm.ESP
}
