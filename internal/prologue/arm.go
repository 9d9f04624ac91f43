package prologue

import (
	"encoding/binary"
	"math/bits"
)

// regList returns the registers of a 16-bit register list, ascending.
func regList(mask uint32) []int {
	var out []int
	for r := 0; r < 16; r++ {
		if mask&(1<<r) != 0 {
			out = append(out, r)
		}
	}
	return out
}

// setFP records that register fp now holds the stack pointer plus imm.
func (f *Frame) setFP(fp int, imm int64) {
	f.FPReg, f.FPBelow = fp, f.SPBelow-imm
}

// stepThumb reads one T32 instruction (ARM ARM A6): PUSH, STR/STMDB with
// writeback to sp, VPUSH, SUB sp, ADD/MOV r7 or r11 from sp, stores of
// registers to the stack; branches end the prologue.
func stepThumb(f *Frame, b []byte) (int, string) {
	if len(b) < 2 {
		return 0, "truncated instruction"
	}
	hw := uint32(binary.LittleEndian.Uint16(b))
	if hw>>11 >= 0x1d { // 32-bit encoding: 0b11101, 0b11110, 0b11111
		if len(b) < 4 {
			return 0, "truncated instruction"
		}
		return 4, thumb32(f, hw, uint32(binary.LittleEndian.Uint16(b[2:])))
	}
	switch {
	case hw&0xfe00 == 0xb400: // PUSH {rlist, lr?}
		f.push(regList(hw&0xff|(hw>>8&1)<<armLR), 4)
	case hw&0xff80 == 0xb080: // SUB sp, sp, #imm7*4
		f.SPBelow += int64(hw&0x7f) * 4
	case hw&0xff00 == 0xaf00: // ADD r7, sp, #imm8*4
		f.setFP(7, int64(hw&0xff)*4)
	case hw == 0x466f: // MOV r7, sp
		f.setFP(7, 0)
	case hw&0xf800 == 0x9000: // STR rt, [sp, #imm8*4]
		f.save(int(hw>>8&7), f.SPBelow-int64(hw&0xff)*4)
	case hw&0xff80 == 0xb000: // ADD sp, sp, #imm: an epilogue
		return 0, "stack pointer raised"
	case hw&0xff87 == 0x4685, hw&0xfe00 == 0xbc00: // MOV sp, rm; POP
		return 0, "stack pointer restored"
	case hw&0xf000 == 0xd000 && hw&0x0e00 != 0x0e00 && hw&0x80 == 0, hw&0xf500 == 0xb100:
		// B<c> forward, CBZ/CBNZ: the prologue goes on along the fall-through
		// path (an early exit skips it).
	case hw&0xf000 == 0xd000 && hw&0x0f00 != 0x0f00, hw&0xf800 == 0xe000, hw&0xff00 == 0x4700:
		return 0, "branch" // B<c> back, B, BX/BLX
	case hw&0xff78 == 0x4468 || hw&0xff87 == 0x4485: // ADD rdn, sp / ADD sp, rm
		return 0, "stack pointer arithmetic"
	}
	return 2, ""
}

// thumb32 reads a 32-bit T32 instruction of halfwords hw1, hw2.
func thumb32(f *Frame, hw1, hw2 uint32) string {
	switch {
	case hw1 == 0xe92d && hw2&0xa000 == 0: // PUSH.W (STMDB sp!), no sp or pc
		f.push(regList(hw2), 4)
	case hw1 == 0xf84d && hw2&0x0fff == 0x0d04: // STR rt, [sp, #-4]!
		f.push([]int{int(hw2 >> 12)}, 4)
	case hw1&0xffbf == 0xed2d && hw2&0x0e00 == 0x0a00: // VPUSH (VSTMDB sp!)
		f.SPBelow += int64(hw2&0xff) * 4
	case hw1&0xfbff == 0xf1ad && hw2&0x8f00 == 0x0d00: // SUB.W sp, sp, #const
		f.SPBelow += int64(thumbExpandImm(hw1, hw2))
	case hw1&0xfbff == 0xf2ad && hw2&0x8f00 == 0x0d00: // SUBW sp, sp, #imm12
		f.SPBelow += int64(plainImm12(hw1, hw2))
	case hw1&0xfbff == 0xf10d && hw2&0x8000 == 0 && (hw2>>8&0xf == 7 || hw2>>8&0xf == 11): // ADD.W r7|r11, sp, #const
		f.setFP(int(hw2>>8&0xf), int64(thumbExpandImm(hw1, hw2)))
	case hw1&0xfbff == 0xf20d && hw2&0x8000 == 0 && (hw2>>8&0xf == 7 || hw2>>8&0xf == 11): // ADDW r7|r11, sp, #imm12
		f.setFP(int(hw2>>8&0xf), int64(plainImm12(hw1, hw2)))
	case hw1 == 0xf8cd: // STR.W rt, [sp, #imm12]
		f.save(int(hw2>>12), f.SPBelow-int64(hw2&0xfff))
	case hw1 == 0xe96d: // STRD rt, rt2, [sp, #-imm8*4]!: a push of two (glibc's strlen)
		f.SPBelow += int64(hw2&0xff) * 4
		f.save(int(hw2>>12), f.SPBelow)
		f.save(int(hw2>>8&0xf), f.SPBelow-4)
	case hw1&0xff7f == 0xe94d: // STRD rt, rt2, [sp, #±imm8*4]
		off := int64(hw2&0xff) * 4
		if hw1&0x80 == 0 {
			off = -off
		}
		f.save(int(hw2>>12), f.SPBelow-off)
		f.save(int(hw2>>8&0xf), f.SPBelow-off-4)
	case hw1&0xf800 == 0xf000 && hw2&0xd000 == 0x8000 && hw1>>6&0xe != 0xe && hw1&0x400 == 0:
		// B<c>.W forward (S clear): the fall-through path goes on
	case hw1&0xf800 == 0xf000 && hw2&0x8000 == 0x8000:
		return "branch" // B, BL, BLX, B<c> back, and the system instructions in that space
	case hw1&0xfe50 == 0xe810 || hw1&0xfe50 == 0xe850 && hw1&0xf == 13:
		return "load multiple" // LDM/POP.W (writes sp or pc), LDRD sp-relative with writeback
	case writesSP32(hw1, hw2):
		return "stack pointer changed"
	}
	return ""
}

// writesSP32 reports whether a 32-bit data-processing instruction's
// destination is sp.
func writesSP32(hw1, hw2 uint32) bool {
	dataProc := hw1&0xfa00 == 0xf000 && hw2&0x8000 == 0 || hw1&0xfe00 == 0xea00
	return dataProc && hw2>>8&0xf == armSP
}

// thumbExpandImm decodes a T32 modified immediate (i:imm3:imm8).
func thumbExpandImm(hw1, hw2 uint32) uint32 {
	imm12 := plainImm12(hw1, hw2)
	imm8 := imm12 & 0xff
	if imm12>>10 == 0 {
		switch imm12 >> 8 & 3 {
		case 0:
			return imm8
		case 1:
			return imm8<<16 | imm8
		case 2:
			return imm8<<24 | imm8<<8
		}
		return imm8<<24 | imm8<<16 | imm8<<8 | imm8
	}
	return bits.RotateLeft32(0x80|imm12&0x7f, -int(imm12>>7))
}

func plainImm12(hw1, hw2 uint32) uint32 {
	return (hw1>>10&1)<<11 | (hw2>>12&7)<<8 | hw2&0xff
}

// stepARM reads one A32 instruction (ARM ARM A5): gdb's
// arm_analyze_prologue's forms, the APCS `mov ip, sp; push {fp, ip, lr,
// pc}; sub fp, ip, #4` among them.
func stepARM(f *Frame, b []byte) (int, string) {
	if len(b) < 4 {
		return 0, "truncated instruction"
	}
	w := binary.LittleEndian.Uint32(b)
	if w>>28 != 0xe { // conditional code is no prologue
		if w>>28 == 0xf {
			return 0, "unconditional instruction"
		}
		return 0, "conditional instruction"
	}
	rot := func() int64 { return int64(bits.RotateLeft32(w&0xff, -int(w>>8&0xf)*2)) }
	if f.FPReg == 12 && w&0x0c000000 == 0 && w>>12&0xf == 12 && w != 0xe1a0c00d {
		f.FPReg = -1 // ip overwritten before fp was set from it
	}
	switch {
	case w == 0xe1a0c00d: // MOV ip, sp
		f.FPReg, f.FPBelow = 12, f.SPBelow // ip: a scratch copy, read by SUB fp, ip
	case w&0xffff0000 == 0xe92d0000: // PUSH {rlist} (STMDB sp!)
		f.push(regList(w&0xffff), 4)
	case w&0xffff0fff == 0xe52d0004: // STR rt, [sp, #-4]!
		f.push([]int{int(w >> 12 & 0xf)}, 4)
	case w&0xfffff000 == 0xe24dd000: // SUB sp, sp, #const
		f.SPBelow += rot()
	case w&0xffbf0e00 == 0xed2d0a00: // VPUSH
		f.SPBelow += int64(w&0xff) * 4
	case w&0xffff0000 == 0xe28d0000 && (w>>12&0xf == 11 || w>>12&0xf == 7): // ADD fp|r7, sp, #const
		f.setFP(int(w>>12&0xf), rot())
	case w == 0xe1a0b00d || w == 0xe1a0700d: // MOV fp|r7, sp
		f.setFP(int(w>>12&0xf), 0)
	case w&0xfffff000 == 0xe24cb000 && f.FPReg == 12: // SUB fp, ip, #const
		f.FPReg, f.FPBelow = 11, f.FPBelow+rot()
	case w&0xffff0000 == 0xe58d0000: // STR rt, [sp, #imm12]
		f.save(int(w>>12&0xf), f.SPBelow-int64(w&0xfff))
	case w&0x0e000000 == 0x0a000000, w&0x0ffffff0 == 0x012fff10, w&0x0ffffff0 == 0x012fff30:
		return 0, "branch" // B, BL, BX, BLX
	case w&0x0e100000 == 0x08100000 || w&0x0c10f000 == 0x0410f000:
		return 0, "load multiple or load into pc"
	case w&0x0c000000 == 0 && w>>12&0xf == armSP && w&0x01900000 != 0x01000000:
		return 0, "stack pointer changed" // data processing into sp (not TST/TEQ/CMP/CMN)
	}
	return 4, ""
}
