package pe

import "sort"

// ARM64Function is an ARM64 .pdata entry: the function's start and either
// packed unwind data (Flag 1, or 2 for a fragment without a prolog) or,
// with Flag 0, the RVA of its .xdata record.
type ARM64Function struct {
	Begin uint32
	Data  uint32 // the entry's second word, flag bits included
}

// Flag is the entry's two low bits: 0 .xdata, 1 packed, 2 packed fragment.
func (a ARM64Function) Flag() uint8 { return uint8(a.Data & 3) }

// ARM64Functions returns the ARM64 exception directory's entries sorted
// by Begin.
func (f *File) ARM64Functions() ([]ARM64Function, error) {
	raw, err := f.exceptionDir(8)
	if raw == nil {
		return nil, err
	}
	out := make([]ARM64Function, 0, len(raw)/8)
	for i := 0; i+8 <= len(raw); i += 8 {
		out = append(out, ARM64Function{le.Uint32(raw[i:]), le.Uint32(raw[i+4:])})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Begin < out[j].Begin })
	return out, nil
}

// ARM64Unwind is an ARM64 function's unwind data, from packed data or an
// .xdata record, as one list of unwind codes.
type ARM64Unwind struct {
	FunctionLength uint32 // bytes
	Packed         bool
	Fragment       bool // packed Flag 2: the function has no prolog of its own
	// The packed fields (Packed only).
	RegF, RegI, CR uint8
	H              bool
	FrameSize      uint32 // bytes
	// .xdata fields.
	Version     uint8
	X, E        bool
	Epilogs     []ARM64Epilog
	Handler     uint32 // with X
	CodeBytes   []byte // the .xdata unwind code bytes
	EpilogIndex int    // with E: the single epilog's first code byte index
	// Prolog is the prolog's codes in .xdata order (the last prolog
	// instruction first), up to and without the end code. For packed data
	// it is the canonical prolog the fields describe.
	Prolog []ARM64Code
}

// ARM64Epilog is an .xdata epilog scope.
type ARM64Epilog struct {
	Start      uint32 // byte offset from the function's start
	StartIndex int    // index of its first code byte in CodeBytes
}

// ARM64Op is an ARM64 unwind operation.
type ARM64Op uint8

// ARM64 unwind operations, named as in Microsoft's documentation.
const (
	A64AllocS ARM64Op = iota
	A64SaveR19R20X
	A64SaveFPLR
	A64SaveFPLRX
	A64AllocM
	A64SaveRegP
	A64SaveRegPX
	A64SaveReg
	A64SaveRegX
	A64SaveLRPair
	A64SaveFRegP
	A64SaveFRegPX
	A64SaveFReg
	A64SaveFRegX
	A64AllocZ
	A64AllocL
	A64SetFP
	A64AddFP
	A64Nop
	A64End
	A64EndC
	A64SaveNext
	A64SaveAnyReg
	A64TrapFrame
	A64MachineFrame
	A64Context
	A64ECContext
	A64ClearUnwoundToCall
	A64PACSignLR
	A64Reserved
)

// ARM64Code is one decoded ARM64 unwind code: one prolog or epilog
// instruction.
type ARM64Code struct {
	Op ARM64Op
	// Reg is the first register saved: 19-30 for x registers (29 with
	// x30 for the fp/lr pairs), 8-15 for d registers.
	Reg uint8
	// Offset is, in bytes: the store's offset from sp, or for a
	// pre-indexed store (the _X forms) how far it lowers sp first; an
	// allocation's size; add_fp's offset.
	Offset uint32
	Len    int // bytes of the encoding
}

// Pair reports whether the code saves two registers.
func (c ARM64Code) Pair() bool {
	switch c.Op {
	case A64SaveR19R20X, A64SaveFPLR, A64SaveFPLRX, A64SaveRegP, A64SaveRegPX, A64SaveLRPair, A64SaveFRegP, A64SaveFRegPX:
		return true
	}
	return false
}

// Float reports whether the code saves d registers.
func (c ARM64Code) Float() bool {
	return c.Op >= A64SaveFRegP && c.Op <= A64SaveFRegX
}

// Writeback reports whether the code lowers sp by Offset before storing
// at [sp] (a pre-indexed store).
func (c ARM64Code) Writeback() bool {
	switch c.Op {
	case A64SaveR19R20X, A64SaveFPLRX, A64SaveRegPX, A64SaveRegX, A64SaveFRegPX, A64SaveFRegX:
		return true
	}
	return false
}

// DecodeARM64Code decodes the unwind code at b[0], ok false when b is too
// short for it.
func DecodeARM64Code(b []byte) (ARM64Code, bool) {
	if len(b) == 0 {
		return ARM64Code{}, false
	}
	c, need := decodeA64(b)
	if len(b) < need {
		return ARM64Code{}, false
	}
	c.Len = need
	return c, true
}

func decodeA64(b []byte) (ARM64Code, int) {
	op := b[0]
	b1 := func() uint32 {
		if len(b) > 1 {
			return uint32(b[1])
		}
		return 0
	}()
	x := uint32(op)<<8 | b1
	switch {
	case op < 0x20:
		return ARM64Code{Op: A64AllocS, Offset: uint32(op&0x1f) << 4}, 1
	case op < 0x40:
		return ARM64Code{Op: A64SaveR19R20X, Reg: 19, Offset: uint32(op&0x1f) << 3}, 1
	case op < 0x80:
		return ARM64Code{Op: A64SaveFPLR, Reg: 29, Offset: uint32(op&0x3f) << 3}, 1
	case op < 0xc0:
		return ARM64Code{Op: A64SaveFPLRX, Reg: 29, Offset: (uint32(op&0x3f) + 1) << 3}, 1
	case op < 0xc8:
		return ARM64Code{Op: A64AllocM, Offset: (x & 0x7ff) << 4}, 2
	case op < 0xcc:
		return ARM64Code{Op: A64SaveRegP, Reg: uint8(19 + (x>>6)&15), Offset: (x & 0x3f) << 3}, 2
	case op < 0xd0:
		return ARM64Code{Op: A64SaveRegPX, Reg: uint8(19 + (x>>6)&15), Offset: (x&0x3f + 1) << 3}, 2
	case op < 0xd4:
		return ARM64Code{Op: A64SaveReg, Reg: uint8(19 + (x>>6)&15), Offset: (x & 0x3f) << 3}, 2
	case op < 0xd6:
		return ARM64Code{Op: A64SaveRegX, Reg: uint8(19 + (x>>5)&15), Offset: (x&0x1f + 1) << 3}, 2
	case op < 0xd8:
		return ARM64Code{Op: A64SaveLRPair, Reg: uint8(19 + 2*((x>>6)&7)), Offset: (x & 0x3f) << 3}, 2
	case op < 0xda:
		return ARM64Code{Op: A64SaveFRegP, Reg: uint8(8 + (x>>6)&7), Offset: (x & 0x3f) << 3}, 2
	case op < 0xdc:
		return ARM64Code{Op: A64SaveFRegPX, Reg: uint8(8 + (x>>6)&7), Offset: (x&0x3f + 1) << 3}, 2
	case op < 0xde:
		return ARM64Code{Op: A64SaveFReg, Reg: uint8(8 + (x>>6)&7), Offset: (x & 0x3f) << 3}, 2
	case op == 0xde:
		return ARM64Code{Op: A64SaveFRegX, Reg: uint8(8 + (x>>5)&7), Offset: (x&0x1f + 1) << 3}, 2
	case op == 0xdf:
		return ARM64Code{Op: A64AllocZ, Offset: b1}, 2
	case op == 0xe0:
		var v uint32
		if len(b) >= 4 {
			v = uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
		}
		return ARM64Code{Op: A64AllocL, Offset: v << 4}, 4
	case op == 0xe1:
		return ARM64Code{Op: A64SetFP}, 1
	case op == 0xe2:
		return ARM64Code{Op: A64AddFP, Offset: b1 << 3}, 2
	case op == 0xe3:
		return ARM64Code{Op: A64Nop}, 1
	case op == 0xe4:
		return ARM64Code{Op: A64End}, 1
	case op == 0xe5:
		return ARM64Code{Op: A64EndC}, 1
	case op == 0xe6:
		return ARM64Code{Op: A64SaveNext}, 1
	case op == 0xe7:
		return ARM64Code{Op: A64SaveAnyReg}, 3
	case op == 0xe8:
		return ARM64Code{Op: A64TrapFrame}, 1
	case op == 0xe9:
		return ARM64Code{Op: A64MachineFrame}, 1
	case op == 0xea:
		return ARM64Code{Op: A64Context}, 1
	case op == 0xeb:
		return ARM64Code{Op: A64ECContext}, 1
	case op == 0xec:
		return ARM64Code{Op: A64ClearUnwoundToCall}, 1
	case op == 0xfc:
		return ARM64Code{Op: A64PACSignLR}, 1
	case op >= 0xf8 && op <= 0xfb: // reserved custom stack codes of 2-5 bytes
		return ARM64Code{Op: A64Reserved}, int(op-0xf8) + 2
	}
	return ARM64Code{Op: A64Reserved}, 1
}

// DecodeARM64Codes decodes codes from b[from:] up to and without an end
// code (or the end of b).
func DecodeARM64Codes(b []byte, from int) ([]ARM64Code, error) {
	var out []ARM64Code
	for i := from; i < len(b); {
		c, ok := DecodeARM64Code(b[i:])
		if !ok {
			return out, offErr("ARM64 unwind code", int64(i), "code %#x truncated", b[i])
		}
		if c.Op == A64End {
			return out, nil
		}
		out = append(out, c)
		i += c.Len
	}
	return out, nil
}
