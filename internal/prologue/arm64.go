package prologue

import "encoding/binary"

// stepARM64 reads one A64 instruction (ARM ARM C4): STP/STR of X or D
// registers to sp (pre-indexed: a push), SUB sp, sp, #imm, ADD x29, sp,
// #imm (MOV x29, sp), the pointer-authentication and BTI hints; branches
// end the prologue.
func stepARM64(f *Frame, b []byte) (int, string) {
	if len(b) < 4 {
		return 0, "truncated instruction"
	}
	w := binary.LittleEndian.Uint32(b)
	rt, rt2 := int(w&0x1f), int(w>>10&0x1f)
	imm7 := int64(int32(w<<10)>>25) * 8 // signed, scaled by 8
	switch {
	case w&0xffc003e0 == 0xa98003e0: // STP xt, xt2, [sp, #imm]!
		f.SPBelow -= imm7
		f.save(rt, f.SPBelow)
		f.save(rt2, f.SPBelow-8)
	case w&0xffc003e0 == 0xa90003e0: // STP xt, xt2, [sp, #imm]
		f.save(rt, f.SPBelow-imm7)
		f.save(rt2, f.SPBelow-imm7-8)
	case w&0xffc003e0 == 0x6d8003e0: // STP dt, dt2, [sp, #imm]!
		f.SPBelow -= imm7
	case w&0xffe00fe0 == 0xf8000fe0: // STR xt, [sp, #imm9]!
		f.SPBelow -= int64(int32(w<<11) >> 23)
		f.save(rt, f.SPBelow)
	case w&0xffc003e0 == 0xf90003e0: // STR xt, [sp, #imm12*8]
		f.save(rt, f.SPBelow-int64(w>>10&0xfff)*8)
	case w&0xff8003ff == 0xd10003ff: // SUB sp, sp, #imm12{, LSL #12}
		f.SPBelow += a64Imm12(w)
	case w&0xff8003ff == 0x910003fd: // ADD x29, sp, #imm12{, LSL #12} (MOV x29, sp)
		f.setFP(a64FP, a64Imm12(w))
	case w == 0xd503233f, w == 0xd503237f, w&0xffffff3f == 0xd503241f, w == 0xd503201f:
		// PACIASP, PACIBSP, BTI, NOP
	case w&0xff000010 == 0x54000000 && w&(1<<23) == 0, w&0x7e000000 == 0x34000000 && w&(1<<23) == 0, w&0x7e000000 == 0x36000000 && w&(1<<18) == 0:
		// B.cond, CBZ/CBNZ, TBZ/TBNZ forward (the offset's sign bit clear):
		// the prologue goes on along the fall-through path
	case w&0x7c000000 == 0x14000000, w&0xfe000000 == 0xd6000000, w&0x7c000000 == 0x34000000, w&0xff000010 == 0x54000000:
		return 0, "branch" // B, BL, BR/BLR/RET, conditional branches back
	case w&0x1f000000 == 0x11000000 && w&0x1f == 0x1f && w&0x20000000 == 0: // ADD/SUB (immediate) into sp
		return 0, "stack pointer changed"
	case w&0x7fc00000 == 0x28c00000 && w>>5&0x1f == 0x1f: // LDP post-indexed from sp
		return 0, "stack pointer raised"
	}
	return 4, ""
}

func a64Imm12(w uint32) int64 {
	imm := int64(w >> 10 & 0xfff)
	if w&(1<<22) != 0 {
		imm <<= 12
	}
	return imm
}
