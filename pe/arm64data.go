package pe

import "slices"

// ARM64UnwindOf returns fn's unwind data: its packed fields expanded to
// the canonical prolog, or its .xdata record decoded.
func (f *File) ARM64UnwindOf(fn ARM64Function) (*ARM64Unwind, error) {
	switch fn.Flag() {
	case 1, 2:
		return DecodeARM64Packed(fn.Data)
	case 0:
		return f.arm64XData(fn.Data)
	}
	return nil, rvaErr("ARM64 .pdata", fn.Begin, "reserved flag 3")
}

// DecodeARM64Packed decodes packed unwind data (a .pdata entry's second
// word with flag 1 or 2).
func DecodeARM64Packed(w uint32) (*ARM64Unwind, error) {
	u := &ARM64Unwind{
		Packed:         true,
		Fragment:       w&3 == 2,
		FunctionLength: (w >> 2 & 0x7ff) * 4,
		RegF:           uint8(w >> 13 & 7),
		RegI:           uint8(w >> 16 & 15),
		H:              w>>20&1 == 1,
		CR:             uint8(w >> 21 & 3),
		FrameSize:      (w >> 23 & 0x1ff) * 16,
	}
	if !u.Fragment {
		u.Prolog = packedProlog(u)
	}
	return u, nil
}

// packedProlog is the canonical prolog of packed data, in .xdata order,
// following the steps of Microsoft's "ARM64 exception handling" (packed
// unwind data).
func packedProlog(u *ARM64Unwind) []ARM64Code {
	intsz := uint32(u.RegI) * 8
	if u.CR == 1 {
		intsz += 8
	}
	fpsz := uint32(u.RegF) * 8
	if u.RegF != 0 {
		fpsz += 8
	}
	hsz := uint32(0)
	if u.H {
		hsz = 64
	}
	savsz := (intsz + fpsz + hsz + 15) &^ 15
	locsz := int64(u.FrameSize) - int64(savsz)
	var p []ARM64Code // execution order
	if u.CR == 2 {
		p = append(p, ARM64Code{Op: A64PACSignLR})
	}
	first := true // the first store lowers sp by savsz
	store := func(op, opX ARM64Op, reg uint8, off uint32) {
		if first {
			p = append(p, ARM64Code{Op: opX, Reg: reg, Offset: savsz})
			first = false
			return
		}
		p = append(p, ARM64Code{Op: op, Reg: reg, Offset: off})
	}
	// Step 1 and 2: x19... in pairs, the odd one paired with lr when CR is 1.
	for i := uint8(0); i+1 < u.RegI; i += 2 {
		store(A64SaveRegP, A64SaveRegPX, 19+i, uint32(i)*8)
	}
	switch {
	case u.RegI&1 == 1 && u.CR == 1:
		store(A64SaveLRPair, A64SaveLRPair, 19+u.RegI-1, uint32(u.RegI-1)*8)
	case u.RegI&1 == 1:
		store(A64SaveReg, A64SaveRegX, 19+u.RegI-1, uint32(u.RegI-1)*8)
	case u.CR == 1:
		store(A64SaveReg, A64SaveRegX, 30, intsz-8)
	}
	// Step 3: d8... in pairs.
	if u.RegF != 0 {
		n := u.RegF + 1
		for i := uint8(0); i+1 < n; i += 2 {
			store(A64SaveFRegP, A64SaveFRegPX, 8+i, intsz+uint32(i)*8)
		}
		if n&1 == 1 {
			store(A64SaveFReg, A64SaveFRegX, 8+n-1, intsz+uint32(n-1)*8)
		}
	}
	// Step 4: the homed parameters x0-x7 (restored by no unwinder).
	if u.H {
		for i := 0; i < 4; i++ {
			if first {
				p = append(p, ARM64Code{Op: A64AllocS, Offset: savsz}) // stp x0,x1,[sp,#-savsz]!
				first = false
				continue
			}
			p = append(p, ARM64Code{Op: A64Nop})
		}
	}
	// Step 5: locals, and the frame record when CR is 2 or 3.
	if locsz < 0 {
		locsz = 0
	}
	loc := uint32(locsz)
	alloc := func(n uint32) {
		if n > 4080 {
			p = append(p, ARM64Code{Op: A64AllocM, Offset: 4080})
			n -= 4080
		}
		if n > 0 {
			op := A64AllocM
			if n < 512 {
				op = A64AllocS
			}
			p = append(p, ARM64Code{Op: op, Offset: n})
		}
	}
	if u.CR == 2 || u.CR == 3 {
		if loc <= 512 {
			p = append(p, ARM64Code{Op: A64SaveFPLRX, Reg: 29, Offset: loc})
		} else {
			alloc(loc)
			p = append(p, ARM64Code{Op: A64SaveFPLR, Reg: 29})
		}
		p = append(p, ARM64Code{Op: A64SetFP})
	} else {
		alloc(loc)
	}
	slices.Reverse(p)
	return p
}

// arm64XData decodes the .xdata record at rva.
func (f *File) arm64XData(rva uint32) (*ARM64Unwind, error) {
	h, err := f.BytesAtRVA(".xdata", rva, 4)
	if err != nil {
		return nil, err
	}
	w0 := le.Uint32(h)
	u := &ARM64Unwind{FunctionLength: (w0 & 0x3ffff) * 4, Version: uint8(w0 >> 18 & 3),
		X: w0>>20&1 == 1, E: w0>>21&1 == 1}
	epilogs, words := int(w0>>22&0x1f), int(w0>>27)
	at := rva + 4
	if epilogs == 0 && words == 0 {
		h, err := f.BytesAtRVA(".xdata", at, 4)
		if err != nil {
			return nil, err
		}
		w1 := le.Uint32(h)
		epilogs, words = int(w1&0xffff), int(w1>>16&0xff)
		at += 4
	}
	if u.Version != 0 {
		return nil, rvaErr(".xdata", rva, "version %d", u.Version)
	}
	nScopes := epilogs
	if u.E {
		u.EpilogIndex, nScopes = epilogs, 0
	}
	size := nScopes*4 + words*4
	if u.X {
		size += 4
	}
	b, err := f.BytesAtRVA(".xdata", at, size)
	if err != nil {
		return nil, err
	}
	for i := 0; i < nScopes; i++ {
		w := le.Uint32(b[i*4:])
		u.Epilogs = append(u.Epilogs, ARM64Epilog{Start: (w & 0x3ffff) * 4, StartIndex: int(w >> 22)})
	}
	u.CodeBytes = b[nScopes*4 : nScopes*4+words*4]
	if u.X {
		u.Handler = le.Uint32(b[nScopes*4+words*4:])
	}
	u.Prolog, err = DecodeARM64Codes(u.CodeBytes, 0)
	if err != nil {
		err.(*FormatError).Offset += int64(at) + int64(nScopes*4)
		err.(*FormatError).IsRVA = true
		return nil, err
	}
	return u, nil
}

// EpilogCodes returns the codes of the epilog whose first code is at
// index in CodeBytes, in execution order, up to its end code.
func (u *ARM64Unwind) EpilogCodes(index int) ([]ARM64Code, error) {
	if index < 0 || index > len(u.CodeBytes) {
		return nil, offErr("ARM64 epilog", int64(index), "code index past %d code bytes", len(u.CodeBytes))
	}
	return DecodeARM64Codes(u.CodeBytes, index)
}

// ResolveSaveNext returns codes (in .xdata order: the first code undoes
// the last prolog instruction, or is the first epilog instruction) with
// each save_next replaced by the pair store it stands for: the register
// pair after the one the store before it in the prolog saved, 16 bytes
// higher. A save_next with no pair store before it stays.
func ResolveSaveNext(codes []ARM64Code) []ARM64Code {
	out := slices.Clone(codes)
	var last *ARM64Code
	var lastOff uint32
	for i := len(out) - 1; i >= 0; i-- {
		c := &out[i]
		switch {
		case c.Op == A64SaveNext && last != nil:
			op := A64SaveRegP
			if last.Float() {
				op = A64SaveFRegP
			}
			*c = ARM64Code{Op: op, Reg: last.Reg + 2, Offset: lastOff + 16, Len: c.Len}
			last, lastOff = c, c.Offset
		case c.Pair() && c.Op != A64SaveFPLR && c.Op != A64SaveFPLRX && c.Op != A64SaveLRPair:
			last, lastOff = c, c.Offset
			if c.Writeback() {
				lastOff = 0
			}
		}
	}
	return out
}

// ARM64FunctionLength returns fn's length in bytes, reading only the
// .xdata header when the data is not packed.
func (f *File) ARM64FunctionLength(fn ARM64Function) (uint32, error) {
	switch fn.Flag() {
	case 1, 2:
		return (fn.Data >> 2 & 0x7ff) * 4, nil
	case 0:
		h, err := f.BytesAtRVA(".xdata", fn.Data, 4)
		if err != nil {
			return 0, err
		}
		return (le.Uint32(h) & 0x3ffff) * 4, nil
	}
	return 0, rvaErr("ARM64 .pdata", fn.Begin, "reserved flag 3")
}
