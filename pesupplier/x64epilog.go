package pesupplier

import (
	"encoding/binary"

	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// maxEpilogBytes is the most an x64 epilog can take: a 7-byte add or
// lea, sixteen 2-byte pops, a 6-byte indirect jmp.
const maxEpilogBytes = 7 + 16*2 + 6

// x64Epilog recognises an epilog at rva by its instruction bytes, as
// RtlVirtualUnwind does (the x64 conventions allow only these forms: an
// optional "add rsp, imm" or "lea rsp, [frame register + disp]", pops,
// then ret, or a jmp out of the function), and returns the rules that
// undo the rest of it.
func (m *Module) x64Epilog(rva uint32, rf pe.RuntimeFunction, u *pe.UnwindInfo) (symfile.CFIRules, bool) {
	code := make([]byte, maxEpilogBytes)
	n := m.readCodeUpTo(uint64(rva), code)
	code = code[:n]
	if len(code) == 0 {
		return symfile.CFIRules{}, false
	}
	cur := loc{reg: "$rsp"}
	var rules frameRules
	pc := 0
	if len(code) >= 4 && code[0]&0xf8 == 0x48 {
		switch c := code; {
		case c[1] == 0x81 && c[0] == 0x48 && c[2] == 0xc4 && len(c) >= 7: // add rsp, imm32
			cur = cur.add(int64(int32(binary.LittleEndian.Uint32(c[3:]))))
			pc = 7
		case c[1] == 0x83 && c[0] == 0x48 && c[2] == 0xc4: // add rsp, imm8
			cur = cur.add(int64(int8(c[3])))
			pc = 4
		case c[1] == 0x8d: // lea rsp, [reg + disp]
			var ok bool
			if cur, pc, ok = leaRSP(c, u); !ok {
				return symfile.CFIRules{}, false
			}
		}
	}
	for pops := 0; pc < len(code); pops++ {
		rex := byte(0)
		if code[pc]&0xf0 == 0x40 {
			rex = code[pc] & 0x0f
			if pc++; pc == len(code) {
				return symfile.CFIRules{}, false
			}
		}
		op := code[pc]
		switch {
		case op >= 0x58 && op <= 0x5f && pops < 16: // pop
			rules.save(x64Regs[int(op-0x58)|int(rex&1)<<3], cur)
			cur = cur.add(8)
			pc++
			continue
		case op == 0xc3, op == 0xf3 && pc+1 < len(code) && code[pc+1] == 0xc3: // ret, rep ret
		case op == 0xc2 && pc+2 < len(code): // ret imm16: the caller's rsp is above the popped bytes
			r := rules.cfi(cur.add(8+int64(binary.LittleEndian.Uint16(code[pc+1:]))), loc{cur.reg, cur.off, true}, x64NonVolatile)
			return r, true
		case op == 0xe9 && pc+5 <= len(code): // jmp rel32: a tail call leaves the function
			if inFunction(rf, rva, pc+5, int64(int32(binary.LittleEndian.Uint32(code[pc+1:])))) {
				return symfile.CFIRules{}, false
			}
		case op == 0xeb && pc+2 <= len(code): // jmp rel8
			if inFunction(rf, rva, pc+2, int64(int8(code[pc+1]))) {
				return symfile.CFIRules{}, false
			}
		case op == 0xff && pc+1 < len(code) && code[pc+1] == 0x25: // jmp [rip+disp32]: an indirect tail call
		default:
			return symfile.CFIRules{}, false
		}
		return rules.cfi(cur.add(8), loc{cur.reg, cur.off, true}, x64NonVolatile), true
	}
	return symfile.CFIRules{}, false
}

// leaRSP decodes "lea rsp, [frame register + disp8/disp32]" at c.
func leaRSP(c []byte, u *pe.UnwindInfo) (loc, int, bool) {
	modrm := c[2]
	if c[0]&0x06 != 0 || modrm>>3&7 != 4 || modrm&7 == 4 {
		return loc{}, 0, false // rex.R/X set, not into rsp, or a SIB byte
	}
	reg := int(modrm&7) | int(c[0]&1)<<3
	if u.FrameRegister == 0 || reg != int(u.FrameRegister) {
		return loc{}, 0, false // only the frame register may be the base
	}
	switch modrm >> 6 {
	case 1:
		return loc{reg: x64Regs[reg], off: int64(int8(c[3]))}, 4, true
	case 2:
		if len(c) < 7 {
			return loc{}, 0, false
		}
		return loc{reg: x64Regs[reg], off: int64(int32(binary.LittleEndian.Uint32(c[3:])))}, 7, true
	}
	return loc{}, 0, false
}

// inFunction reports whether a jmp ending end bytes past rva, by rel,
// lands inside rf (a branch, not an epilog's tail call).
func inFunction(rf pe.RuntimeFunction, rva uint32, end int, rel int64) bool {
	target := int64(rva) + int64(end) + rel
	return target >= int64(rf.Begin) && target < int64(rf.End)
}
