package prologue

import "encoding/binary"

// stepX86 reads one IA-32 or x86-64 instruction of the forms gdb's
// i386_analyze_prologue and amd64_analyze_prologue know, and a few GCC
// puts among them: ENDBR, PUSH reg, MOV rsp→rbp, SUB imm from rsp,
// register-to-register MOV and XOR (which touch no stack). Any other
// instruction ends the prologue: x86 code cannot be skipped without
// decoding it in full.
func stepX86(f *Frame, b []byte, long bool) (int, string) {
	word := int64(4)
	if long {
		word = 8
	}
	if len(b) >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && (b[3] == 0xfa || b[3] == 0xfb) {
		return 4, "" // ENDBR64 / ENDBR32
	}
	i, rex := 0, byte(0)
	if long && b[0]&0xf0 == 0x40 {
		rex, i = b[0], 1
	}
	if i >= len(b) {
		return 0, "truncated instruction"
	}
	op := b[i]
	switch {
	case op >= 0x50 && op <= 0x57: // PUSH r
		r := int(op&7) | int(rex&1)<<3
		f.push([]int{r}, word)
		return i + 1, ""
	case op == 0x89 || op == 0x8b || op == 0x31 || op == 0x33:
		if i+1 >= len(b) || b[i+1]>>6 != 3 {
			return 0, "memory operand"
		}
		modrm := b[i+1]
		reg, rm := int(modrm>>3&7)|int(rex>>2&1)<<3, int(modrm&7)|int(rex&1)<<3
		dst, src := rm, reg
		if op == 0x8b || op == 0x33 {
			dst, src = reg, rm
		}
		if dst == x86SP {
			return 0, "stack pointer changed"
		}
		if (op == 0x89 || op == 0x8b) && src == x86SP && dst == x86BP && (!long || rex&8 != 0) {
			f.setFP(x86BP, 0) // MOV rsp, rbp
		} else if dst == x86BP {
			f.FPReg = -1
		}
		return i + 2, ""
	case op == 0x83 || op == 0x81:
		if i+1 >= len(b) || b[i+1] != 0xec { // SUB imm, rsp
			if i+1 < len(b) && b[i+1]&0xc7 == 0xc4 {
				return 0, "stack pointer changed"
			}
			return 0, "not a prologue instruction"
		}
		if op == 0x83 && i+2 < len(b) {
			f.SPBelow += int64(int8(b[i+2]))
			return i + 3, ""
		}
		if op == 0x81 && i+5 < len(b) {
			f.SPBelow += int64(int32(binary.LittleEndian.Uint32(b[i+2:])))
			return i + 6, ""
		}
		return 0, "truncated instruction"
	}
	return 0, "not a prologue instruction"
}
