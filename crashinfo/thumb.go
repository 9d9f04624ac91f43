package crashinfo

import (
	"encoding/binary"
	"fmt"
)

// Thumb state: golang.org/x/arch has no Thumb decoder, so this file decodes
// the instructions that can fault on a data access: the 16-bit and 32-bit
// loads and stores (single, dual, multiple, push and pop). Other
// instructions are not decoded (no instruction, no accesses). The text is
// GNU objdump's spelling, without its "@ address" comments.

// thumbMem is a decoded load or store.
type thumbMem struct {
	mnemonic string
	load     bool
	size     int    // bytes per register
	rt       []int  // transfer registers
	rn       int    // base register
	list     uint16 // load/store multiple: the register list
	mode     string // multiple: "IA" or "DB"
	// single: offset form
	imm      int64
	rm       int // -1: immediate offset
	shift    uint
	index    bool // pre-index or offset (false: post-index)
	wback    bool
	operands string // the text after the mnemonic
}

func analyzeThumb(code []byte, in *Input) *decoded {
	if len(code) < 2 {
		return nil
	}
	hw1 := binary.LittleEndian.Uint16(code)
	var m *thumbMem
	if hw1>>11 >= 0x1d {
		if len(code) < 4 {
			return nil
		}
		m = decodeThumb32(hw1, binary.LittleEndian.Uint16(code[2:]))
	} else {
		m = decodeThumb16(hw1)
	}
	if m == nil {
		return nil
	}
	d := &decoded{text: m.mnemonic + " " + m.operands, known: true}
	g := &regs{ctx: in.Context, ok: true}
	ip, _ := in.Context.IP()
	d.accesses, d.registers = thumbAccesses(m, g, ip)
	if !g.ok {
		d.known, d.accesses = false, nil
	}
	d.ipUpdate, d.ipKnown = loadedPC(m.load, m.list, m.rt, d.accesses, in.Memory)
	return d
}

// loadedPC is the instruction pointer update of an arm load: the word it
// loads into pc (the last register of a list, or the transfer register),
// read from the dump; known is false when that word is not captured.
// Stores and loads of other registers leave pc alone.
func loadedPC(load bool, list uint16, rt []int, accesses []Access, mem Memory) (update *Access, known bool) {
	toPC := list&(1<<15) != 0 || len(rt) > 0 && rt[len(rt)-1] == 15
	if !load || !toPC {
		return nil, true
	}
	if len(accesses) == 0 {
		return nil, false
	}
	var b [4]byte
	if mem.ReadMemory(accesses[len(accesses)-1].Address, b[:]) != nil {
		return nil, false
	}
	v := uint64(binary.LittleEndian.Uint32(b[:])) &^ 1 // bit 0 selects Thumb state
	return &Access{Address: v, LikelyNull: v == 0}, true
}

func thumbAccesses(m *thumbMem, g *regs, ip uint64) ([]Access, []string) {
	if m.list != 0 {
		return multipleAccesses(g, m.rn, m.list, m.load, m.mode), []string{armRegNames[m.rn]}
	}
	names := []string{}
	var base uint64
	if m.rn == 15 {
		base = (ip + 4) &^ 3 // literal loads use Align(PC, 4)
	} else {
		base = armReg(g, m.rn, ip, 4)
		names = append(names, armRegNames[m.rn])
	}
	addr := base
	if m.index {
		off := uint64(m.imm)
		if m.rm >= 0 {
			off = armReg(g, m.rm, ip, 4) << m.shift
			names = appendName(names, armRegNames[m.rm])
		}
		addr = (base + off) & 0xffffffff
	}
	t := AccessWrite
	if m.load {
		t = AccessRead
	}
	var out []Access
	for i := range m.rt {
		out = append(out, Access{Address: (addr + uint64(i*m.size)) & 0xffffffff, Size: m.size, Type: t,
			LikelyNull: base == 0 && m.rn != 13 && m.rn != 15})
	}
	return out, names
}

func regName(n int) string { return armRegNames[n] }

// thumbImmText prints "[rn, #imm]" (#0 included, as objdump does for the
// 16-bit forms).
func thumbImmText(rn int, imm int64) string { return fmt.Sprintf("[%s, #%d]", regName(rn), imm) }

func decodeThumb16(hw uint16) *thumbMem {
	rt, rn := int(hw&7), int(hw>>3&7)
	imm5 := int64(hw >> 6 & 0x1f)
	single := func(name string, load bool, size int, imm int64) *thumbMem {
		return &thumbMem{mnemonic: name, load: load, size: size, rt: []int{rt}, rn: rn, imm: imm, rm: -1,
			index: true, operands: regName(rt) + ", " + thumbImmText(rn, imm)}
	}
	switch hw >> 11 {
	case 0x0c:
		return single("str", false, 4, imm5*4)
	case 0x0d:
		return single("ldr", true, 4, imm5*4)
	case 0x0e:
		return single("strb", false, 1, imm5)
	case 0x0f:
		return single("ldrb", true, 1, imm5)
	case 0x10:
		return single("strh", false, 2, imm5*2)
	case 0x11:
		return single("ldrh", true, 2, imm5*2)
	case 0x09: // ldr rt, [pc, #imm8*4]
		rt := int(hw >> 8 & 7)
		imm := int64(hw&0xff) * 4
		return &thumbMem{mnemonic: "ldr", load: true, size: 4, rt: []int{rt}, rn: 15, imm: imm, rm: -1, index: true,
			operands: regName(rt) + ", " + thumbImmText(15, imm)}
	case 0x12, 0x13: // str/ldr rt, [sp, #imm8*4]
		rt := int(hw >> 8 & 7)
		imm := int64(hw&0xff) * 4
		name, load := "str", hw>>11 == 0x13
		if load {
			name = "ldr"
		}
		return &thumbMem{mnemonic: name, load: load, size: 4, rt: []int{rt}, rn: 13, imm: imm, rm: -1, index: true,
			operands: regName(rt) + ", " + thumbImmText(13, imm)}
	case 0x18, 0x19: // stmia/ldmia rn!, {list}
		rn := int(hw >> 8 & 7)
		list := hw & 0xff
		if list == 0 {
			return nil
		}
		load := hw>>11 == 0x19
		name, wb := "stmia", "!"
		if load {
			name = "ldmia"
			if list&(1<<rn) != 0 {
				wb = ""
			}
		}
		return &thumbMem{mnemonic: name, load: load, size: 4, rn: rn, list: list, mode: "IA",
			operands: regName(rn) + wb + ", " + armRegListText(list)}
	}
	if hw>>12 == 5 { // register offset
		names := []string{"str", "strh", "strb", "ldrsb", "ldr", "ldrh", "ldrb", "ldrsh"}
		sizes := []int{4, 2, 1, 1, 4, 2, 1, 2}
		opc := hw >> 9 & 7
		rm := int(hw >> 6 & 7)
		return &thumbMem{mnemonic: names[opc], load: opc >= 3, size: sizes[opc], rt: []int{rt}, rn: rn, rm: rm, index: true,
			operands: fmt.Sprintf("%s, [%s, %s]", regName(rt), regName(rn), regName(rm))}
	}
	switch hw & 0xfe00 {
	case 0xb400, 0xbc00: // push {list, lr} / pop {list, pc}
		list := hw & 0xff
		load := hw&0xfe00 == 0xbc00
		name, mode := "push", "DB"
		if hw&0x100 != 0 {
			if load {
				list |= 1 << 15
			} else {
				list |= 1 << 14
			}
		}
		if load {
			name, mode = "pop", "IA"
		}
		if list == 0 {
			return nil
		}
		return &thumbMem{mnemonic: name, load: load, size: 4, rn: 13, list: list, mode: mode, operands: armRegListText(list)}
	}
	return nil
}

func decodeThumb32(hw1, hw2 uint16) *thumbMem {
	rn := int(hw1 & 0xf)
	rt := int(hw2 >> 12)
	switch {
	case hw1&0xfe00 == 0xf800: // load/store single
		return decodeThumbSingle(hw1, hw2, rn, rt)
	case hw1&0xfe40 == 0xe840 && hw1&0x0120 != 0: // ldrd/strd (immediate)
		p, u, w, load := hw1&0x100 != 0, hw1&0x80 != 0, hw1&0x20 != 0, hw1&0x10 != 0
		rt2 := int(hw2 >> 8 & 0xf)
		imm := int64(hw2&0xff) * 4
		if !u {
			imm = -imm
		}
		name := "strd"
		if load {
			name = "ldrd"
		}
		return &thumbMem{mnemonic: name, load: load, size: 4, rt: []int{rt, rt2}, rn: rn, imm: imm, rm: -1, index: p, wback: w,
			operands: fmt.Sprintf("%s, %s, %s", regName(rt), regName(rt2), thumbIndexText(rn, imm, p, w, true))}
	case hw1&0xffd0 == 0xe880 || hw1&0xffd0 == 0xe890 || hw1&0xffd0 == 0xe900 || hw1&0xffd0 == 0xe910: // ldm/stm
		load, w := hw1&0x10 != 0, hw1&0x20 != 0
		mode, name := "IA", "stmia.w"
		if hw1&0x0100 != 0 {
			mode, name = "DB", "stmdb"
		}
		switch {
		case load && mode == "IA":
			name = "ldmia.w"
		case load:
			name = "ldmdb"
		}
		if hw2 == 0 {
			return nil
		}
		wb := ""
		if w {
			wb = "!"
		}
		return &thumbMem{mnemonic: name, load: load, size: 4, rn: rn, list: hw2, mode: mode,
			operands: regName(rn) + wb + ", " + armRegListText(hw2)}
	}
	return nil
}

func decodeThumbSingle(hw1, hw2 uint16, rn, rt int) *thumbMem {
	signed, long, size, load := hw1&0x100 != 0, hw1&0x80 != 0, hw1>>5&3, hw1&0x10 != 0
	if size == 3 || signed && !load {
		return nil
	}
	if load && rt == 15 && size < 2 {
		return nil // pld/pli: a hint, no access
	}
	name := "str"
	if load {
		name = "ldr"
	}
	if signed {
		name += "s"
	}
	name += []string{"b", "h", ""}[size] + ".w"
	m := &thumbMem{mnemonic: name, load: load, size: 1 << size, rt: []int{rt}, rn: rn, rm: -1, index: true}
	switch {
	case rn == 15: // literal
		m.imm = int64(hw2 & 0xfff)
		if !long { // U bit clear: subtract
			m.imm = -m.imm
		}
		m.operands = fmt.Sprintf("%s, [pc, #%d]", regName(rt), m.imm)
	case long: // imm12
		m.imm = int64(hw2 & 0xfff)
		m.operands = regName(rt) + ", " + thumbIndexText(rn, m.imm, true, false, false)
	case hw2&0x800 != 0: // imm8 with P, U, W
		p, u, w := hw2&0x400 != 0, hw2&0x200 != 0, hw2&0x100 != 0
		m.imm = int64(hw2 & 0xff)
		if !u {
			m.imm = -m.imm
		}
		m.index, m.wback = p, w
		m.operands = regName(rt) + ", " + thumbIndexText(rn, m.imm, p, w, true)
	case hw2&0xfc0 == 0: // register, lsl #imm2
		m.rm, m.shift = int(hw2&0xf), uint(hw2>>4&3)
		sh := ""
		if m.shift != 0 {
			sh = fmt.Sprintf(", lsl #%d", m.shift)
		}
		m.operands = fmt.Sprintf("%s, [%s, %s%s]", regName(rt), regName(rn), regName(m.rm), sh)
	default:
		return nil
	}
	return m
}

// thumbIndexText prints an immediate-offset address of a 32-bit form:
// "[rn]" for offset 0 (unless zeroShown), "[rn, #imm]", "[rn, #imm]!"
// (pre-index) or "[rn], #imm" (post-index).
func thumbIndexText(rn int, imm int64, pre, wback, zeroShown bool) string {
	switch {
	case !pre:
		return fmt.Sprintf("[%s], #%d", regName(rn), imm)
	case wback:
		return fmt.Sprintf("[%s, #%d]!", regName(rn), imm)
	case imm == 0:
		return fmt.Sprintf("[%s]", regName(rn))
	}
	return fmt.Sprintf("[%s, #%d]", regName(rn), imm)
}
