package pdb

// Binary annotation opcodes of S_INLINESITE (CodeView's
// BinaryAnnotationOpcode).
const (
	baInvalid = iota
	baCodeOffset
	baChangeCodeOffsetBase
	baChangeCodeOffset
	baChangeCodeLength
	baChangeFile
	baChangeLineOffset
	baChangeLineEndDelta
	baChangeRangeKind
	baChangeColumnStart
	baChangeColumnEndDelta
	baChangeCodeOffsetAndLineOffset
	baChangeCodeLengthAndCodeOffset
	baChangeColumnEnd
)

// maxInlineRanges bounds the ranges of one inline site.
const maxInlineRanges = 1 << 16

// compressed reads a CodeView compressed unsigned integer (1, 2 or 4
// bytes); ok is false at the end or on a malformed one.
func compressed(b []byte, i *int) (uint32, bool) {
	if *i >= len(b) {
		return 0, false
	}
	c := b[*i]
	switch {
	case c&0x80 == 0:
		*i++
		return uint32(c), true
	case c&0xc0 == 0x80:
		if *i+2 > len(b) {
			return 0, false
		}
		v := uint32(c&0x3f)<<8 | uint32(b[*i+1])
		*i += 2
		return v, true
	case c&0xe0 == 0xc0:
		if *i+4 > len(b) {
			return 0, false
		}
		v := uint32(c&0x1f)<<24 | uint32(b[*i+1])<<16 | uint32(b[*i+2])<<8 | uint32(b[*i+3])
		*i += 4
		return v, true
	}
	return 0, false
}

// signed decodes a compressed signed integer (the sign in bit 0).
func signed(v uint32) int32 {
	if v&1 != 0 {
		return -int32(v >> 1)
	}
	return int32(v >> 1)
}

// inlineRanges runs site's binary annotations (the rest of r) from the
// inlinee's first line, as the pdb crate's and LLVM's readers do: each
// change of code offset starts a range at the new offset with the current
// file and line; a range without an explicit length runs to the next one.
func (mi *ModuleInfo) inlineRanges(site *InlineSite, proc *Proc, r *reader) error {
	ann := r.b[r.off:]
	start := mi.InlineeLines[site.Inlinee]
	line, file := int64(start.Line), start.File
	var codeOffset, base uint32
	open := -1 // the range whose length is not known yet
	emit := func(length uint32, known bool) {
		if open >= 0 && site.Ranges[open].Len == 0 {
			site.Ranges[open].Len = proc.Offset + base + codeOffset - site.Ranges[open].Offset
		}
		site.Ranges = append(site.Ranges, InlineRange{Offset: proc.Offset + base + codeOffset, Len: length, Line: uint32(line), File: file})
		open = len(site.Ranges) - 1
		if known {
			open = -1
		}
	}
	for i := 0; i < len(ann); {
		at := i
		op, ok := compressed(ann, &i)
		if !ok || op == baInvalid {
			break // the annotations are padded with zeros
		}
		a, ok := compressed(ann, &i)
		if !ok {
			return errAt(r.stream, r.base+int64(r.off+at), "binary annotation %d without its operand", op)
		}
		switch op {
		case baCodeOffset:
			codeOffset = a
		case baChangeCodeOffsetBase:
			base = a
		case baChangeCodeOffset:
			codeOffset += a
			emit(0, false)
		case baChangeCodeLength:
			if open >= 0 {
				site.Ranges[open].Len = a
				open = -1
			}
			codeOffset += a
		case baChangeFile:
			file = a
		case baChangeLineOffset:
			line += int64(signed(a))
		case baChangeCodeOffsetAndLineOffset:
			codeOffset += a & 0xf
			line += int64(signed(a >> 4))
			emit(0, false)
		case baChangeCodeLengthAndCodeOffset:
			off, ok := compressed(ann, &i)
			if !ok {
				return errAt(r.stream, r.base+int64(r.off+at), "binary annotation %d without its second operand", op)
			}
			codeOffset += off
			emit(a, true)
		case baChangeLineEndDelta, baChangeRangeKind, baChangeColumnStart, baChangeColumnEndDelta, baChangeColumnEnd:
		default:
			return errAt(r.stream, r.base+int64(r.off+at), "binary annotation opcode %d unknown", op)
		}
		if len(site.Ranges) > maxInlineRanges {
			return errAt(r.stream, r.base+int64(r.off+at), "more than %d inline ranges", maxInlineRanges)
		}
	}
	if open >= 0 && site.Ranges[open].Len == 0 {
		// Unterminated: the site runs to the end of its procedure.
		if e := proc.Offset + proc.Len; e > site.Ranges[open].Offset {
			site.Ranges[open].Len = e - site.Ranges[open].Offset
		}
	}
	return nil
}
