package elfcfi

import (
	"encoding/binary"
	"fmt"
)

// Exidx is a parsed .ARM.exidx section with its .ARM.extab.
type Exidx struct {
	data    []byte
	addr    uint64
	tab     []byte
	tabAddr uint64
	order   binary.ByteOrder
}

// ExidxEntry is one entry of .ARM.exidx: the unwind opcodes of the code
// from Func up to the next entry's function.
type ExidxEntry struct {
	Offset     uint64 // offset of the entry in .ARM.exidx
	Func       uint64 // start of the code the entry covers
	End        uint64 // start of the next entry's code; ^0 for the last entry
	CantUnwind bool   // EXIDX_CANTUNWIND: the code cannot be unwound
	// Model is the compact model's personality index (0, 1 or 2), or -1
	// for a generic personality routine at Personality.
	Model       int
	Personality uint64
	Extab       uint64 // address of the .ARM.extab entry; 0 when inline
	Ops         []byte // the unwind opcodes
}

const exidxCantUnwind = 1

// NewExidx checks the shape of .ARM.exidx (at address addr) and keeps it with
// .ARM.extab (tab at tabAddr, possibly nil) for lookups.
func NewExidx(data []byte, addr uint64, tab []byte, tabAddr uint64, order binary.ByteOrder) (*Exidx, error) {
	if len(data)%8 != 0 {
		return nil, formatErr(".ARM.exidx", uint64(len(data)&^7), "size %d is not a multiple of 8", len(data))
	}
	if len(data) > maxSectionSize || len(tab) > maxSectionSize {
		return nil, formatErr(".ARM.exidx", 0, "section over the %d byte limit", maxSectionSize)
	}
	return &Exidx{data: data, addr: addr, tab: tab, tabAddr: tabAddr, order: order}, nil
}

// Len returns the number of entries.
func (x *Exidx) Len() int { return len(x.data) / 8 }

// prel31 decodes a 31-bit place-relative offset stored at address at.
func prel31(word uint32, at uint64) uint64 {
	off := int64(int32(word<<1) >> 1)
	return uint64(int64(at)+off) & 0xffffffff
}

func (x *Exidx) funcAt(i int) uint64 {
	return prel31(x.order.Uint32(x.data[8*i:]), x.addr+uint64(8*i))
}

// Entry decodes entry i.
func (x *Exidx) Entry(i int) (*ExidxEntry, error) {
	if i < 0 || i >= x.Len() {
		return nil, fmt.Errorf("elfcfi: .ARM.exidx entry %d out of range", i)
	}
	off := uint64(8 * i)
	w0 := x.order.Uint32(x.data[off:])
	w1 := x.order.Uint32(x.data[off+4:])
	if w0&0x80000000 != 0 {
		return nil, formatErr(".ARM.exidx", off, "function offset %#x has bit 31 set", w0)
	}
	e := &ExidxEntry{Offset: off, Func: x.funcAt(i), End: ^uint64(0)}
	if i+1 < x.Len() {
		e.End = x.funcAt(i + 1)
	}
	switch {
	case w1 == exidxCantUnwind:
		e.CantUnwind = true
	case w1&0x80000000 != 0:
		if idx := w1 >> 24 & 0x0f; idx != 0 {
			return nil, formatErr(".ARM.exidx", off+4, "inline entry with personality index %d", idx)
		}
		e.Model = 0
		e.Ops = []byte{byte(w1 >> 16), byte(w1 >> 8), byte(w1)}
	default:
		e.Extab = prel31(w1, x.addr+off+4)
		if err := x.readExtab(e); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (x *Exidx) readExtab(e *ExidxEntry) error {
	at := e.Extab - x.tabAddr
	if e.Extab < x.tabAddr || at >= uint64(len(x.tab)) || uint64(len(x.tab))-at < 4 {
		return formatErr(".ARM.exidx", e.Offset+4, ".ARM.extab address %#x is outside .ARM.extab", e.Extab)
	}
	b := &buf{Data: x.tab, Pos: int(at), Order: x.order}
	w := b.U32()
	var extra uint32
	if w&0x80000000 != 0 {
		e.Model = int(w >> 24 & 0x0f)
		switch e.Model {
		case 0:
			e.Ops = []byte{byte(w >> 16), byte(w >> 8), byte(w)}
			return nil
		case 1, 2:
			extra = w >> 16 & 0xff
			e.Ops = []byte{byte(w >> 8), byte(w)}
		default:
			return formatErr(".ARM.extab", at, "personality index %d not supported", e.Model)
		}
	} else {
		// A generic personality routine; GCC's (__gcc_personality_v0,
		// __gxx_personality_v0) take opcodes in the long model's layout
		// with the word count in the top byte.
		e.Model = -1
		e.Personality = prel31(w, e.Extab)
		w = b.U32()
		if b.Err != nil {
			return formatErr(".ARM.extab", at, "truncated entry")
		}
		extra = w >> 24
		e.Ops = []byte{byte(w >> 16), byte(w >> 8), byte(w)}
	}
	if uint64(extra)*4 > uint64(b.Left()) {
		return formatErr(".ARM.extab", at, "%d opcode words run past the end of .ARM.extab", extra)
	}
	for ; extra > 0; extra-- {
		w := b.U32()
		e.Ops = append(e.Ops, byte(w>>24), byte(w>>16), byte(w>>8), byte(w))
	}
	return nil
}

// ExidxOpKind is the kind of an EHABI unwind opcode.
type ExidxOpKind uint8

const (
	OpVSPAdd     ExidxOpKind = iota + 1 // vsp += Value
	OpVSPSub                            // vsp -= Value
	OpRefuse                            // refuse to unwind
	OpPopCore                           // pop the core registers in Mask (bit n: rn)
	OpVSPFromReg                        // vsp = r[Reg]
	OpFinish                            // finish
	OpPopVFP                            // pop Count doubles from d[Reg], Value bytes in all
	OpPopWMMX                           // pop Count iWMMXt data registers from wR[Reg]
	OpPopWCGR                           // pop the iWMMXt control registers in Mask
	OpSpare                             // a spare or reserved encoding
)

// ExidxOp is one decoded unwind opcode.
type ExidxOp struct {
	Bytes []byte
	Kind  ExidxOpKind
	Value uint64 // byte count for OpVSPAdd, OpVSPSub, OpPopVFP
	Reg   uint8
	Count uint8
	Mask  uint16
	// FSTMFDX marks VFP registers saved with FSTMFDX, which adds a pad word.
	FSTMFDX bool
}

// DecodeExidxOps splits opcode bytes into opcodes, up to the end of ops;
// trailing finish opcodes are kept. A truncated multi-byte opcode is an
// error.
func DecodeExidxOps(ops []byte) ([]ExidxOp, error) {
	var out []ExidxOp
	for i := 0; i < len(ops); {
		op, n, err := decodeOp(ops[i:])
		if err != nil {
			return out, fmt.Errorf("elfcfi: unwind opcode %d: %w", i, err)
		}
		op.Bytes = ops[i : i+n]
		out = append(out, op)
		i += n
	}
	return out, nil
}

func decodeOp(b []byte) (ExidxOp, int, error) {
	op := b[0]
	need := func(n int) error {
		if len(b) < n {
			return fmt.Errorf("opcode %#02x: truncated", op)
		}
		return nil
	}
	switch {
	case op&0xc0 == 0x00:
		return ExidxOp{Kind: OpVSPAdd, Value: uint64(op&0x3f)<<2 + 4}, 1, nil
	case op&0xc0 == 0x40:
		return ExidxOp{Kind: OpVSPSub, Value: uint64(op&0x3f)<<2 + 4}, 1, nil
	case op&0xf0 == 0x80:
		if err := need(2); err != nil {
			return ExidxOp{}, 0, err
		}
		mask := uint16(op&0x0f)<<8 | uint16(b[1])
		if mask == 0 {
			return ExidxOp{Kind: OpRefuse}, 2, nil
		}
		return ExidxOp{Kind: OpPopCore, Mask: mask << 4}, 2, nil
	case op&0xf0 == 0x90:
		if op == 0x9d || op == 0x9f {
			return ExidxOp{Kind: OpSpare}, 1, nil
		}
		return ExidxOp{Kind: OpVSPFromReg, Reg: op & 0x0f}, 1, nil
	case op&0xf8 == 0xa0:
		return ExidxOp{Kind: OpPopCore, Mask: uint16(1<<(op&7+1)-1) << 4}, 1, nil
	case op&0xf8 == 0xa8:
		return ExidxOp{Kind: OpPopCore, Mask: uint16(1<<(op&7+1)-1)<<4 | 1<<14}, 1, nil
	case op == 0xb0:
		return ExidxOp{Kind: OpFinish}, 1, nil
	case op == 0xb1:
		if err := need(2); err != nil {
			return ExidxOp{}, 0, err
		}
		if b[1] == 0 || b[1]&0xf0 != 0 {
			return ExidxOp{Kind: OpSpare}, 2, nil
		}
		return ExidxOp{Kind: OpPopCore, Mask: uint16(b[1])}, 2, nil
	case op == 0xb2:
		lb := &buf{Data: b[1:]}
		v := lb.ULEB()
		if lb.Err != nil || v > 1<<30 {
			return ExidxOp{}, 0, fmt.Errorf("opcode 0xb2: bad ULEB128 operand")
		}
		return ExidxOp{Kind: OpVSPAdd, Value: 0x204 + v<<2}, 1 + lb.Pos, nil
	case op == 0xb3, op == 0xc8, op == 0xc9:
		if err := need(2); err != nil {
			return ExidxOp{}, 0, err
		}
		first, count := b[1]>>4, b[1]&0x0f+1
		o := ExidxOp{Kind: OpPopVFP, Reg: first, Count: count, Value: 8 * uint64(count)}
		switch op {
		case 0xb3:
			o.FSTMFDX, o.Value = true, o.Value+4
		case 0xc8:
			o.Reg += 16
		}
		return o, 2, nil
	case op&0xfc == 0xb4:
		return ExidxOp{Kind: OpSpare}, 1, nil
	case op&0xf8 == 0xb8:
		count := op&7 + 1
		return ExidxOp{Kind: OpPopVFP, Reg: 8, Count: count, Value: 8*uint64(count) + 4, FSTMFDX: true}, 1, nil
	case op == 0xc6:
		if err := need(2); err != nil {
			return ExidxOp{}, 0, err
		}
		count := b[1]&0x0f + 1
		return ExidxOp{Kind: OpPopWMMX, Reg: b[1] >> 4, Count: count, Value: 8 * uint64(count)}, 2, nil
	case op == 0xc7:
		if err := need(2); err != nil {
			return ExidxOp{}, 0, err
		}
		if b[1] == 0 || b[1]&0xf0 != 0 {
			return ExidxOp{Kind: OpSpare}, 2, nil
		}
		mask := uint16(b[1])
		return ExidxOp{Kind: OpPopWCGR, Mask: mask, Value: 4 * uint64(popcount(mask))}, 2, nil
	case op&0xf8 == 0xc0:
		count := op&7 + 1
		return ExidxOp{Kind: OpPopWMMX, Reg: 10, Count: count, Value: 8 * uint64(count)}, 1, nil
	case op&0xf8 == 0xd0:
		count := op&7 + 1
		return ExidxOp{Kind: OpPopVFP, Reg: 8, Count: count, Value: 8 * uint64(count)}, 1, nil
	}
	return ExidxOp{Kind: OpSpare}, 1, nil
}

func popcount(m uint16) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}
