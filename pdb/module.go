package pdb

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// Proc is a procedure of a module: S_GPROC32/S_LPROC32 (and their _ID
// forms, whose Type is an IPI item id) or a thunk (S_THUNK32).
type Proc struct {
	Name    string
	Section uint16
	Offset  uint32
	Len     uint32
	Type    uint32 // a TPI type index, or an IPI id when TypeIsID
	// TypeIsID: Type is an IPI item (LF_FUNC_ID, LF_MFUNC_ID).
	TypeIsID bool
	Global   bool
	Thunk    bool
	Inlines  []*InlineSite // the call sites inlined directly into the procedure
	// FrameVars are the procedure's own variables (not those of nested
	// blocks or inline sites) that live at a register-relative address:
	// S_REGREL32 and S_BPREL32 records, and S_LOCAL records placed by
	// their S_DEFRANGE_* records.
	FrameVars []FrameVar
}

// FrameVar is a register-relative variable of a procedure.
type FrameVar struct {
	// Register is CodeView's: 22 EBP, 21 ESP, RegFramePointer for a
	// frame-pointer-relative range (the "VFRAME"), 0 when the variable
	// lives in a register.
	Register uint16
	Offset   int32
	Type     uint32
	Name     string
	// Local: from an S_LOCAL, whose Param flag says whether it is a
	// parameter and whose place is its longest S_DEFRANGE range.
	Local bool
	Param bool
	// BPRel: from an S_BPREL32 (EBP-relative; Register is 22).
	BPRel bool
}

// RegFramePointer is FrameVar.Register of a variable placed relative to the
// frame pointer (S_DEFRANGE_FRAMEPOINTER_REL), CodeView's CV_ALLREG_VFRAME.
const RegFramePointer = 30006

// InlineSite is an S_INLINESITE(2): a call inlined into its parent. Its
// code ranges come from the binary annotations, starting from the
// inlinee's line in the module's inlinee lines.
type InlineSite struct {
	Inlinee  uint32 // IPI id of the inlined function (LF_FUNC_ID/LF_MFUNC_ID)
	Ranges   []InlineRange
	Children []*InlineSite
}

// InlineRange is code of an inline site: Offset is a section offset in the
// procedure's section; File is a file checksum offset (FileName).
type InlineRange struct {
	Offset uint32
	Len    uint32
	Line   uint32
	File   uint32
}

// Line is one C13 line record: the code from Offset (a section offset) for
// Len bytes comes from Line of File (a file checksum offset).
type Line struct {
	Section uint16
	Offset  uint32
	Len     uint32
	Line    uint32
	File    uint32
}

// InlineeLine is where an inlined function's source begins.
type InlineeLine struct {
	File uint32 // file checksum offset
	Line uint32
}

// ModuleInfo is what a module symbol stream holds.
type ModuleInfo struct {
	Procs        []*Proc
	Lines        []Line
	InlineeLines map[uint32]InlineeLine
	checksums    []byte // the DEBUG_S_FILECHKSMS subsection
	imports      []crossImport
	exports      map[uint32]uint32 // local id -> IPI id, for other modules
	stream       int
	strs         *StringTable
}

const (
	c13Signature       = 4
	debugSLines        = 0xf2
	debugSFileChecksum = 0xf4
	debugSInlineeLines = 0xf6
	debugSCrossImports = 0xf7
	debugSCrossExports = 0xf8
	debugSIgnore       = 0x80000000
	// maxModuleLines bounds the line records kept per module.
	maxModuleLines = 1 << 24
)

// ModuleInfo reads module m's symbol stream: its procedures and inline
// sites, its C13 lines, file checksums and inlinee lines. A module without
// a stream gives an empty ModuleInfo.
func (f *File) ModuleInfo(m *Module) (*ModuleInfo, error) {
	strs, err := f.Strings()
	if err != nil {
		return nil, err
	}
	mi := &ModuleInfo{InlineeLines: map[uint32]InlineeLine{}, stream: int(m.SymStream), strs: strs}
	if _, ok := f.StreamSize(int(m.SymStream)); !ok || m.SymStream == NoStream {
		return mi, nil
	}
	b, err := f.Stream(int(m.SymStream))
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", m.Name, err)
	}
	s := int(m.SymStream)
	end := uint64(m.SymSize) + uint64(m.C11Size) + uint64(m.C13Size)
	if end > uint64(len(b)) || m.SymSize < 4 && m.SymSize != 0 {
		return nil, errAt(s, 0, "module %s: %d+%d+%d bytes of symbols and lines in a %d-byte stream", m.Name, m.SymSize, m.C11Size, m.C13Size, len(b))
	}
	// The lines come after the symbols but are read first: inline sites
	// start from their inlinee's line.
	c13 := uint64(m.SymSize) + uint64(m.C11Size)
	if err := mi.readC13(s, b[c13:end], int64(c13)); err != nil {
		return nil, fmt.Errorf("module %s: %w", m.Name, err)
	}
	if m.SymSize >= 4 {
		if sig := binary.LittleEndian.Uint32(b); sig != c13Signature {
			return nil, errAt(s, 0, "module %s: symbol signature %d, not C13's 4", m.Name, sig)
		}
		if err := mi.readSymbols(s, b[4:m.SymSize]); err != nil {
			return nil, fmt.Errorf("module %s: %w", m.Name, err)
		}
	}
	return mi, nil
}

// FileName returns the name of the file whose checksum entry is at off in
// the module's DEBUG_S_FILECHKSMS subsection.
func (mi *ModuleInfo) FileName(off uint32) (string, error) {
	if uint64(off)+6 > uint64(len(mi.checksums)) {
		return "", errAt(mi.stream, int64(off), "file checksum offset %#x outside the %d-byte checksum subsection", off, len(mi.checksums))
	}
	return mi.strs.At(binary.LittleEndian.Uint32(mi.checksums[off:]))
}

func (mi *ModuleInfo) readC13(s int, b []byte, base int64) error {
	r := newReader(s, b, base)
	type pending struct {
		data []byte
		off  int64
	}
	var lines []pending
	for r.left() >= 8 {
		kind, n := r.u32(), r.u32()
		off := r.base + int64(r.off)
		data := r.bytes(int(min(n, 1<<31-1)), "C13 subsection")
		if r.err != nil {
			return r.err
		}
		r.align(4)
		switch kind &^ debugSIgnore {
		case debugSLines:
			if kind&debugSIgnore == 0 {
				lines = append(lines, pending{data, off})
			}
		case debugSFileChecksum:
			mi.checksums = data
		case debugSInlineeLines:
			if err := mi.readInlineeLines(s, data, off); err != nil {
				return err
			}
		case debugSCrossImports:
			if err := mi.readImports(s, data, off); err != nil {
				return err
			}
		case debugSCrossExports:
			if err := mi.readExports(s, data, off); err != nil {
				return err
			}
		}
	}
	// Line blocks name files by checksum offset, so read them once the
	// checksums are known, wherever the subsection lies.
	for _, p := range lines {
		if err := mi.readLines(s, p.data, p.off); err != nil {
			return err
		}
	}
	return nil
}

func (mi *ModuleInfo) readLines(s int, b []byte, base int64) error {
	r := newReader(s, b, base)
	offset, section, flags, codeSize := r.u32(), r.u16(), r.u16(), r.u32()
	hasColumns := flags&1 != 0
	first := len(mi.Lines)
	defer func() { setLineLengths(mi.Lines[first:], offset+codeSize) }()
	for r.left() > 0 && r.err == nil {
		blockStart := r.off
		file, n, size := r.u32(), r.u32(), r.u32()
		if r.err != nil {
			break
		}
		if size < 12 || uint64(size) > uint64(r.left()+12) {
			return errAt(s, r.base+int64(blockStart), "line block of %d bytes, %d left", size, r.left()+12)
		}
		per := 8
		if hasColumns {
			per = 12
		}
		if uint64(n)*uint64(per) > uint64(size-12) {
			return errAt(s, r.base+int64(blockStart), "%d lines do not fit a %d-byte block", n, size)
		}
		if len(mi.Lines)+int(n) > maxModuleLines {
			return errAt(s, r.base+int64(blockStart), "more than %d line records", maxModuleLines)
		}
		for range n {
			lo, lf := r.u32(), r.u32()
			mi.Lines = append(mi.Lines, Line{Section: section, Offset: offset + lo, Line: lf & 0xffffff, File: file})
		}
		r.off = blockStart + int(size)
	}
	return r.err
}

func (mi *ModuleInfo) readInlineeLines(s int, b []byte, base int64) error {
	r := newReader(s, b, base)
	sig := r.u32()
	for r.left() > 0 && r.err == nil {
		id, file, line := r.u32(), r.u32(), r.u32()
		if sig == 1 { // with extra files
			n := r.count(r.u32(), 4, "inlinee extra files")
			r.bytes(4*n, "inlinee extra files")
		}
		if r.err == nil {
			mi.InlineeLines[id] = InlineeLine{File: file, Line: line}
		}
	}
	return r.err
}

// setLineLengths gives each line of one lines subsection (all its files'
// blocks) the bytes up to the next line's offset, the last line those up
// to end.
func setLineLengths(ls []Line, end uint32) {
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].Offset < ls[j].Offset })
	for i := range ls {
		next := end
		if i+1 < len(ls) {
			next = ls[i+1].Offset
		}
		if next > ls[i].Offset {
			ls[i].Len = next - ls[i].Offset
		}
	}
}

// FileOffsets lists the offsets of the module's file checksum entries, in
// order: one per source file of the module (FileName names each).
func (mi *ModuleInfo) FileOffsets() []uint32 {
	var offs []uint32
	b := mi.checksums
	for off := 0; off+6 <= len(b); {
		offs = append(offs, uint32(off))
		off += 6 + int(b[off+4])
		off = (off + 3) &^ 3
	}
	return offs
}
