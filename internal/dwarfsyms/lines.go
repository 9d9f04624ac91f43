package dwarfsyms

import (
	"encoding/binary"
	"fmt"
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

// buf reads a section with bounds checks; the first failure sticks.
type buf struct {
	section string
	data    []byte
	off     uint64
	order   binary.ByteOrder
	err     error
}

func (b *buf) fail(msg string) {
	if b.err == nil {
		b.err = &FormatError{Section: b.section, Offset: b.off, Msg: msg}
	}
}

func (b *buf) bytes(n uint64) []byte {
	if b.err != nil {
		return nil
	}
	if n > uint64(len(b.data))-b.off || b.off > uint64(len(b.data)) {
		b.fail("data runs past the end")
		return nil
	}
	s := b.data[b.off : b.off+n]
	b.off += n
	return s
}

func (b *buf) u8() uint8 {
	if s := b.bytes(1); s != nil {
		return s[0]
	}
	return 0
}

func (b *buf) u16() uint16 {
	if s := b.bytes(2); s != nil {
		return b.order.Uint16(s)
	}
	return 0
}

func (b *buf) u32() uint32 {
	if s := b.bytes(4); s != nil {
		return b.order.Uint32(s)
	}
	return 0
}

func (b *buf) u64() uint64 {
	if s := b.bytes(8); s != nil {
		return b.order.Uint64(s)
	}
	return 0
}

func (b *buf) uint(size int) uint64 {
	switch size {
	case 1:
		return uint64(b.u8())
	case 2:
		return uint64(b.u16())
	case 4:
		return uint64(b.u32())
	case 8:
		return b.u64()
	}
	b.fail(fmt.Sprintf("unsupported size %d", size))
	return 0
}

func (b *buf) uleb() uint64 {
	var v uint64
	var shift uint
	for {
		c := b.u8()
		if b.err != nil {
			return 0
		}
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			return v
		}
	}
}

func (b *buf) sleb() int64 {
	var v int64
	var shift uint
	for {
		c := b.u8()
		if b.err != nil {
			return 0
		}
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

func (b *buf) cstring() string {
	if b.err != nil {
		return ""
	}
	for i := b.off; i < uint64(len(b.data)); i++ {
		if b.data[i] == 0 {
			s := string(b.data[b.off:i])
			b.off = i + 1
			return s
		}
	}
	b.fail("unterminated string")
	return ""
}

// stringAt reads the NUL-terminated string at off of a string section.
func stringAt(section string, data []byte, off uint64) (string, error) {
	b := &buf{section: section, data: data, off: off}
	if off >= uint64(len(data)) {
		return "", &FormatError{Section: section, Offset: off, Msg: "string offset past the end"}
	}
	s := b.cstring()
	return s, b.err
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
	b := &buf{section: ".debug_line", data: lr.debugLine, off: off, order: lr.order}
	if off >= uint64(len(lr.debugLine)) {
		return nil, &FormatError{Section: ".debug_line", Offset: off, Msg: "line program offset past the end"}
	}
	offSize := 4
	length := uint64(b.u32())
	if length == 0xffffffff {
		offSize, length = 8, b.u64()
	} else if length >= 0xfffffff0 {
		b.fail("reserved unit length")
	}
	if b.err != nil {
		return nil, b.err
	}
	end := b.off + length
	if length > uint64(len(lr.debugLine))-b.off {
		return nil, &FormatError{Section: ".debug_line", Offset: off, Msg: "line program runs past the end of the section"}
	}
	b.data = lr.debugLine[:end]
	version := b.u16()
	if version < 2 || version > 5 {
		return nil, &FormatError{Section: ".debug_line", Offset: off, Msg: fmt.Sprintf("unsupported line table version %d", version)}
	}
	if version >= 5 {
		addrSize = int(b.u8())
		b.u8() // segment selector size
	}
	headerLength := b.uint(offSize)
	programStart := b.off + headerLength
	minInsn := uint64(b.u8())
	if version >= 4 {
		b.u8() // maximum operations per instruction: taken as 1, as Breakpad does
	}
	defaultIsStmt := b.u8()
	_ = defaultIsStmt
	lineBase := int8(b.u8())
	lineRange := b.u8()
	opcodeBase := b.u8()
	if b.err == nil && lineRange == 0 {
		b.fail("line_range of 0")
	}
	opLengths := b.bytes(uint64(max(int(opcodeBase)-1, 0)))
	if b.err != nil {
		return nil, b.err
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
		for i := uint64(1); b.err == nil; i++ {
			name := b.cstring()
			if name == "" {
				break
			}
			dirs[i] = expandPath(name, compDir)
		}
		defineFile("", 0, 0)
		for i := uint64(1); b.err == nil; i++ {
			name := b.cstring()
			if name == "" {
				break
			}
			dir := b.uleb()
			b.uleb()
			b.uleb()
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
	if b.err != nil {
		return nil, b.err
	}
	if programStart > end || programStart < b.off {
		return nil, &FormatError{Section: ".debug_line", Offset: off, Msg: "header length out of range"}
	}
	b.off = programStart
	return t, lr.run(b, t, addrSize, minInsn, lineBase, lineRange, opcodeBase, opLengths, defineFile)
}

// readV5Entries reads a DWARF 5 directory or file name table, calling
// entry for each row with its path and directory index.
func (lr *lineReader) readV5Entries(b *buf, offSize int, entry func(row uint64, path string, dir uint64)) {
	nformats := b.u8()
	type format struct{ typ, form uint64 }
	formats := make([]format, 0, nformats)
	for i := 0; i < int(nformats) && b.err == nil; i++ {
		formats = append(formats, format{b.uleb(), b.uleb()})
	}
	count := b.uleb()
	if count > uint64(len(b.data)) {
		b.fail("entry count larger than the section")
		return
	}
	for row := uint64(0); row < count && b.err == nil; row++ {
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
		return 0, b.cstring()
	case formLineStrp, formStrp:
		off := b.uint(offSize)
		if b.err != nil {
			return 0, ""
		}
		sec, name := lr.debugLineStr, ".debug_line_str"
		if form == formStrp {
			sec, name = lr.debugStr, ".debug_str"
		}
		s, err := stringAt(name, sec, off)
		if err != nil && b.err == nil {
			b.err = err
		}
		return 0, s
	case formData1, formFlag, formStrx1:
		return uint64(b.u8()), ""
	case formData2, formStrx2:
		return uint64(b.u16()), ""
	case formStrx3:
		s := b.bytes(3)
		if s == nil {
			return 0, ""
		}
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16, ""
	case formData4, formStrx4:
		return uint64(b.u32()), ""
	case formData8:
		return b.u64(), ""
	case formData16:
		b.bytes(16)
		return 0, ""
	case formUdata, formStrx:
		return b.uleb(), ""
	case formSdata:
		return uint64(b.sleb()), ""
	case formSecOff:
		return b.uint(offSize), ""
	case formBlock1:
		b.bytes(uint64(b.u8()))
	case formBlock2:
		b.bytes(uint64(b.u16()))
	case formBlock4:
		b.bytes(uint64(b.u32()))
	case formBlock:
		b.bytes(b.uleb())
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
			return &FormatError{Section: ".debug_line", Offset: b.off, Msg: fmt.Sprintf("more than %d line rows", lr.limits.MaxLines)}
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
	for b.err == nil && b.off < uint64(len(b.data)) {
		op := b.u8()
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
			addr += minInsn * b.uleb()
		case 3: // DW_LNS_advance_line
			lineNum += uint32(int32(b.sleb()))
		case 4: // DW_LNS_set_file
			fileNum = uint64(uint32(b.uleb()))
		case 5: // DW_LNS_set_column
			b.uleb()
		case 6, 7: // negate_stmt, set_basic_block
		case 8: // DW_LNS_const_add_pc
			addr += minInsn * uint64((255-opcodeBase)/lineRange)
		case 9: // DW_LNS_fixed_advance_pc
			addr += uint64(b.u16())
		case 0: // extended
			n := b.uleb()
			if b.err != nil {
				break
			}
			if n == 0 || n > uint64(len(b.data))-b.off {
				b.fail("extended opcode runs past the end")
				break
			}
			next := b.off + n
			switch b.u8() {
			case 1: // DW_LNE_end_sequence
				if err := row(true); err != nil {
					return err
				}
			case 2: // DW_LNE_set_address
				addr = b.uint(min(addrSize, int(n-1)))
			case 3: // DW_LNE_define_file
				name := b.cstring()
				dir := b.uleb()
				highestFile++
				defineFile(name, uint64(highestFile), dir)
			}
			b.off = next
		default:
			if int(op)-1 < len(opLengths) {
				for i := 0; i < int(opLengths[op-1]); i++ {
					b.uleb()
				}
			}
		}
	}
	return b.err
}
