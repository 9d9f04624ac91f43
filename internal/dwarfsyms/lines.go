package dwarfsyms

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/dwarfbuf"
)

// Line is a run of code from one source line.
type Line struct {
	Addr, Size uint64
	File       int   // index in Data.Files
	Number     int32 // as Breakpad prints it: the table's unsigned line as a signed int
}

// FormatError is malformed DWARF data.
type FormatError struct {
	Section string
	Offset  uint64
	Msg     string
	Err     error // the debug/dwarf error, if any
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("dwarfsyms: %s at offset %#x: %s", e.Section, e.Offset, e.Msg)
}

func (e *FormatError) Unwrap() error { return e.Err }

// buf is a dwarfbuf.Buf over a named section (its Base is 0, so Pos is
// the section offset); its failure reads as a *FormatError.
type buf struct {
	dwarfbuf.Buf
	section string
}

func newBuf(section string, data []byte, order binary.ByteOrder) *buf {
	return &buf{Buf: dwarfbuf.Buf{Data: data, Order: order}, section: section}
}

// fail records a malformed field at the current offset.
func (b *buf) fail(msg string) { b.Fail(errors.New(msg)) }

// err is the first failure as a *FormatError, nil when none.
func (b *buf) err() error {
	var located *FormatError
	switch {
	case b.Err == nil:
		return nil
	case errors.As(b.Err, &located): // in another section, at its offset
		return located
	}
	return &FormatError{Section: b.section, Offset: b.ErrOff, Msg: b.Err.Error()}
}

// stringAt reads the NUL-terminated string at off of a string section.
func stringAt(section string, data []byte, off uint64) (string, error) {
	if off >= uint64(len(data)) {
		return "", &FormatError{Section: section, Offset: off, Msg: "string offset past the end"}
	}
	b := newBuf(section, data, nil)
	b.Seek(off)
	s := b.CString()
	return s, b.err()
}

// lineTable is what one unit's line program gives: its rows and its file
// numbers' entries in the file-wide table.
type lineTable struct {
	lines []Line
	files map[uint64]int
}

// expandPath joins a relative path to base as Breakpad does: as text, with
// one '/' between, the path kept as it is when absolute or when base is
// empty.
func expandPath(path, base string) string {
	if len(path) > 0 && path[0] == '/' || base == "" {
		return path
	}
	if base[len(base)-1] == '/' {
		return base + path
	}
	return base + "/" + path
}

// DWARF forms and line-table content types the line header uses.
const (
	formBlock2   = 0x03
	formBlock4   = 0x04
	formData2    = 0x05
	formData4    = 0x06
	formData8    = 0x07
	formString   = 0x08
	formBlock    = 0x09
	formBlock1   = 0x0a
	formData1    = 0x0b
	formFlag     = 0x0c
	formSdata    = 0x0d
	formStrp     = 0x0e
	formUdata    = 0x0f
	formSecOff   = 0x17
	formStrx     = 0x1a
	formData16   = 0x1e
	formLineStrp = 0x1f
	formStrx1    = 0x25
	formStrx2    = 0x26
	formStrx3    = 0x27
	formStrx4    = 0x28

	lnctPath     = 1
	lnctDirIndex = 2
)

// lineReader reads line programs into the file-wide file table.
type lineReader struct {
	debugLine, debugStr, debugLineStr []byte
	order                             binary.ByteOrder
	files                             *fileTable
	limits                            *Limits
	rows                              *int // rows read so far, file-wide
}

// fileTable interns file names.
type fileTable struct {
	names []string
	index map[string]int
}

func (t *fileTable) find(name string) int {
	if i, ok := t.index[name]; ok {
		return i
	}
	t.index[name] = len(t.names)
	t.names = append(t.names, name)
	return len(t.names) - 1
}

// read reads the line program at off of a unit whose addresses are
// addrSize bytes and whose compilation directory is compDir.
func (lr *lineReader) read(off uint64, addrSize int, compDir string) (*lineTable, error) {
	if off >= uint64(len(lr.debugLine)) {
		return nil, &FormatError{Section: ".debug_line", Offset: off, Msg: "line program offset past the end"}
	}
	b := newBuf(".debug_line", lr.debugLine, lr.order)
	b.Seek(off)
	offSize := 4
	length := uint64(b.U32())
	if length == 0xffffffff {
		offSize, length = 8, b.U64()
	} else if length >= 0xfffffff0 {
		b.fail("reserved unit length")
	}
	if b.Err != nil {
		return nil, b.err()
	}
	end := b.Off() + length
	if length > uint64(len(lr.debugLine))-b.Off() {
		return nil, &FormatError{Section: ".debug_line", Offset: off, Msg: "line program runs past the end of the section"}
	}
	b.Data = lr.debugLine[:end]
	version := b.U16()
	if version < 2 || version > 5 {
		return nil, &FormatError{Section: ".debug_line", Offset: off, Msg: fmt.Sprintf("unsupported line table version %d", version)}
	}
	if version >= 5 {
		addrSize = int(b.U8())
		b.U8() // segment selector size
	}
	headerLength := b.Uint(offSize)
	programStart := b.Off() + headerLength
	minInsn := uint64(b.U8())
	if version >= 4 {
		b.U8() // maximum operations per instruction: taken as 1, as Breakpad does
	}
	defaultIsStmt := b.U8()
	_ = defaultIsStmt
	lineBase := int8(b.U8())
	lineRange := b.U8()
	opcodeBase := b.U8()
	if b.Err == nil && lineRange == 0 {
		b.fail("line_range of 0")
	}
	opLengths := b.Bytes(uint64(max(int(opcodeBase)-1, 0)))
	if b.Err != nil {
		return nil, b.err()
	}
	t := &lineTable{files: map[uint64]int{}}
	dirs := map[uint64]string{}
	defineFile := func(name string, num, dir uint64) {
		dirName := compDir
		if dir != 0 {
			dirName = dirs[dir]
		}
		t.files[num] = lr.files.find(expandPath(name, dirName))
	}
	if version <= 4 {
		for i := uint64(1); b.Err == nil; i++ {
			name := b.CString()
			if name == "" {
				break
			}
			dirs[i] = expandPath(name, compDir)
		}
		defineFile("", 0, 0)
		for i := uint64(1); b.Err == nil; i++ {
			name := b.CString()
			if name == "" {
				break
			}
			dir := b.ULEB()
			b.ULEB()
			b.ULEB()
			defineFile(name, i, dir)
		}
	} else {
		lr.readV5Entries(b, offSize, func(row uint64, path string, _ uint64) {
			if row != 0 {
				dirs[row] = expandPath(path, compDir)
			}
		})
		lr.readV5Entries(b, offSize, func(row uint64, path string, dir uint64) {
			defineFile(path, row, dir)
		})
	}
	if b.Err != nil {
		return nil, b.err()
	}
	if programStart > end || programStart < b.Off() {
		return nil, &FormatError{Section: ".debug_line", Offset: off, Msg: "header length out of range"}
	}
	b.Seek(programStart)
	return t, lr.run(b, t, addrSize, minInsn, lineBase, lineRange, opcodeBase, opLengths, defineFile)
}

// readV5Entries reads a DWARF 5 directory or file name table, calling
// entry for each row with its path and directory index.
func (lr *lineReader) readV5Entries(b *buf, offSize int, entry func(row uint64, path string, dir uint64)) {
	nformats := b.U8()
	type format struct{ typ, form uint64 }
	formats := make([]format, 0, nformats)
	for i := 0; i < int(nformats) && b.Err == nil; i++ {
		formats = append(formats, format{b.ULEB(), b.ULEB()})
	}
	count := b.ULEB()
	if count > uint64(len(b.Data)) {
		b.fail("entry count larger than the section")
		return
	}
	for row := uint64(0); row < count && b.Err == nil; row++ {
		var path string
		var dir uint64
		for _, f := range formats {
			v, s := lr.formValue(b, f.form, offSize)
			switch f.typ {
			case lnctPath:
				path = s
			case lnctDirIndex:
				dir = v
			}
		}
		entry(row, path, dir)
	}
}

// formValue reads one attribute value of a line header entry: its number,
// or its string for the string forms.
func (lr *lineReader) formValue(b *buf, form uint64, offSize int) (uint64, string) {
	switch form {
	case formString:
		return 0, b.CString()
	case formLineStrp, formStrp:
		off := b.Uint(offSize)
		if b.Err != nil {
			return 0, ""
		}
		sec, name := lr.debugLineStr, ".debug_line_str"
		if form == formStrp {
			sec, name = lr.debugStr, ".debug_str"
		}
		s, err := stringAt(name, sec, off)
		if err != nil {
			b.Fail(err)
		}
		return 0, s
	case formData1, formFlag, formStrx1:
		return uint64(b.U8()), ""
	case formData2, formStrx2:
		return uint64(b.U16()), ""
	case formStrx3:
		s := b.Bytes(3)
		if s == nil {
			return 0, ""
		}
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16, ""
	case formData4, formStrx4:
		return uint64(b.U32()), ""
	case formData8:
		return b.U64(), ""
	case formData16:
		b.Bytes(16)
		return 0, ""
	case formUdata, formStrx:
		return b.ULEB(), ""
	case formSdata:
		return uint64(b.SLEB()), ""
	case formSecOff:
		return b.Uint(offSize), ""
	case formBlock1:
		b.Bytes(uint64(b.U8()))
	case formBlock2:
		b.Bytes(uint64(b.U16()))
	case formBlock4:
		b.Bytes(uint64(b.U32()))
	case formBlock:
		b.Bytes(b.ULEB())
	default:
		b.fail(fmt.Sprintf("unsupported form %#x in a line table header", form))
	}
	return 0, ""
}

// run executes a line program, adding a line for each row that has a next
// row in its sequence.
func (lr *lineReader) run(b *buf, t *lineTable, addrSize int, minInsn uint64, lineBase int8, lineRange, opcodeBase uint8,
	opLengths []byte, defineFile func(string, uint64, uint64)) error {
	var addr, fileNum uint64
	var lineNum uint32
	reset := func() { addr, fileNum, lineNum = 0, 1, 1 }
	reset()
	var pending bool
	var pAddr, pFile uint64
	var pLine uint32
	omittedEnd := uint64(0)
	highestFile := int64(-1)
	for n := range t.files {
		highestFile = max(highestFile, int64(n))
	}
	addLine := func(address, length, file uint64, line uint32) error {
		if length == 0 {
			return nil
		}
		if address+length < address {
			length = -address
		}
		if address == 0 || address == omittedEnd {
			omittedEnd = address + length
			return nil
		}
		omittedEnd = 0
		idx, ok := t.files[file]
		if !ok {
			return nil
		}
		if *lr.rows >= lr.limits.MaxLines {
			return &FormatError{Section: ".debug_line", Offset: b.Off(), Msg: fmt.Sprintf("more than %d line rows", lr.limits.MaxLines)}
		}
		*lr.rows++
		t.lines = append(t.lines, Line{address, length, idx, int32(line)})
		return nil
	}
	row := func(endSeq bool) error {
		if pending {
			if err := addLine(pAddr, addr-pAddr, pFile, pLine); err != nil {
				return err
			}
		}
		if endSeq {
			reset()
			pending = false
		} else {
			pAddr, pFile, pLine, pending = addr, fileNum, lineNum, true
		}
		return nil
	}
	for b.Err == nil && b.Off() < uint64(len(b.Data)) {
		op := b.U8()
		if op >= opcodeBase {
			op -= opcodeBase
			addr += uint64(op/lineRange) * minInsn
			lineNum += uint32(int32(op%lineRange) + int32(lineBase))
			if err := row(false); err != nil {
				return err
			}
			continue
		}
		switch op {
		case 1: // DW_LNS_copy
			if err := row(false); err != nil {
				return err
			}
		case 2: // DW_LNS_advance_pc
			addr += minInsn * b.ULEB()
		case 3: // DW_LNS_advance_line
			lineNum += uint32(int32(b.SLEB()))
		case 4: // DW_LNS_set_file
			fileNum = uint64(uint32(b.ULEB()))
		case 5: // DW_LNS_set_column
			b.ULEB()
		case 6, 7: // negate_stmt, set_basic_block
		case 8: // DW_LNS_const_add_pc
			addr += minInsn * uint64((255-opcodeBase)/lineRange)
		case 9: // DW_LNS_fixed_advance_pc
			addr += uint64(b.U16())
		case 0: // extended
			n := b.ULEB()
			if b.Err != nil {
				break
			}
			if n == 0 || n > uint64(len(b.Data))-b.Off() {
				b.fail("extended opcode runs past the end")
				break
			}
			next := b.Off() + n
			switch b.U8() {
			case 1: // DW_LNE_end_sequence
				if err := row(true); err != nil {
					return err
				}
			case 2: // DW_LNE_set_address
				addr = b.Uint(min(addrSize, int(n-1)))
			case 3: // DW_LNE_define_file
				name := b.CString()
				dir := b.ULEB()
				highestFile++
				defineFile(name, uint64(highestFile), dir)
			}
			b.Seek(next)
		default:
			if int(op)-1 < len(opLengths) {
				for i := 0; i < int(opLengths[op-1]); i++ {
					b.ULEB()
				}
			}
		}
	}
	return b.err()
}
