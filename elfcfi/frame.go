package elfcfi

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"sync"
)

// Kind says which section a Section holds: the two formats differ in CIE
// identifiers, CIE pointers and pointer encodings.
type Kind int

const (
	EHFrame    Kind = iota // .eh_frame: GCC's runtime unwind tables
	DebugFrame             // .debug_frame: DWARF's call frame information
)

func (k Kind) String() string {
	if k == DebugFrame {
		return ".debug_frame"
	}
	return ".eh_frame"
}

// Arch describes the ELF file a section comes from.
type Arch struct {
	Machine  elf.Machine
	Order    binary.ByteOrder
	PtrSize  int    // 4 or 8: the address size of the file
	TextAddr uint64 // base of DW_EH_PE_textrel pointers (the .text address)
	DataAddr uint64 // base of DW_EH_PE_datarel pointers (.got on i386, else 0)
}

// Section is a parsed .eh_frame or .debug_frame section. It is safe for
// concurrent use.
type Section struct {
	kind Kind
	data []byte
	addr uint64 // the section's address, the base of pc-relative pointers
	arch Arch

	hdr *searchTable // from .eh_frame_hdr, nil when absent or unusable

	once  sync.Once
	index []fdeRange // every FDE sorted by start, built on first lookup without hdr
	ierr  error

	cieMu sync.Mutex
	cies  map[uint64]*CIE
}

type fdeRange struct {
	begin, end uint64
	off        uint64
}

// CIE is a Common Information Entry.
type CIE struct {
	Offset        uint64 // section offset of the entry's length field
	Version       uint8
	Augmentation  string
	AddressSize   uint8 // from a version 4 .debug_frame CIE, else the file's
	CodeAlign     uint64
	DataAlign     int64
	RAReg         uint64 // the return address column
	FDEEncoding   uint8  // DW_EH_PE_* of the FDEs' addresses
	LSDAEncoding  uint8
	Personality   uint64 // address of the personality routine, if 'P'
	SignalFrame   bool   // 'S': FDEs of this CIE describe signal trampolines
	BKey          bool   // 'B': AArch64 return addresses signed with the B key
	Instructions  []byte // initial instructions
	hasAugData    bool
	instructionAt uint64 // section offset of Instructions
}

// FDE is a Frame Description Entry: the unwind rules of [Begin, End).
type FDE struct {
	Offset        uint64 // section offset of the entry's length field
	CIE           *CIE
	Begin, End    uint64
	LSDA          uint64
	Instructions  []byte
	instructionAt uint64
	section       *Section
}

// Pointer encodings (DW_EH_PE_*).
const (
	peAbsptr   = 0x00
	peULEB128  = 0x01
	peUdata2   = 0x02
	peUdata4   = 0x03
	peUdata8   = 0x04
	peSLEB128  = 0x09
	peSdata2   = 0x0a
	peSdata4   = 0x0b
	peSdata8   = 0x0c
	pePCRel    = 0x10
	peTextRel  = 0x20
	peDataRel  = 0x30
	peFuncRel  = 0x40
	peAligned  = 0x50
	peIndirect = 0x80
	peOmit     = 0xff
)

// maxSectionSize bounds the sections this package accepts: large enough for
// any real library (Chromium's .eh_frame is about 20 MB), small enough that
// offsets fit in an int everywhere.
const maxSectionSize = 1 << 30

// NewEHFrame parses an .eh_frame section at address addr. hdr and hdrAddr are
// the .eh_frame_hdr section and its address, or nil; when its search table
// is well formed, Find uses it instead of indexing every FDE.
func NewEHFrame(data []byte, addr uint64, hdr []byte, hdrAddr uint64, arch Arch) (*Section, error) {
	s, err := newSection(EHFrame, data, addr, arch)
	if err != nil {
		return nil, err
	}
	if hdr != nil {
		t, err := parseSearchTable(hdr, hdrAddr, s)
		if err != nil {
			return nil, err
		}
		s.hdr = t
	}
	return s, nil
}

// NewDebugFrame parses a .debug_frame section.
func NewDebugFrame(data []byte, arch Arch) (*Section, error) {
	return newSection(DebugFrame, data, 0, arch)
}

func newSection(kind Kind, data []byte, addr uint64, arch Arch) (*Section, error) {
	if arch.PtrSize != 4 && arch.PtrSize != 8 {
		return nil, fmt.Errorf("elfcfi: address size %d: want 4 or 8", arch.PtrSize)
	}
	if arch.Order == nil {
		return nil, fmt.Errorf("elfcfi: no byte order")
	}
	if len(data) > maxSectionSize {
		return nil, formatErr(kind.String(), 0, "section of %d bytes is over the %d byte limit", len(data), maxSectionSize)
	}
	return &Section{kind: kind, data: data, addr: addr, arch: arch, cies: map[uint64]*CIE{}}, nil
}

// Kind returns the kind of the section.
func (s *Section) Kind() Kind { return s.kind }

func (s *Section) name() string { return s.kind.String() }

func (s *Section) errAt(off uint64, format string, args ...any) *FormatError {
	return formatErr(s.name(), off, format, args...)
}

// entry is one raw CIE or FDE: its header fields and body.
type entry struct {
	off    uint64 // offset of the length field
	next   uint64 // offset of the following entry
	is64   bool   // DWARF64 length
	isCIE  bool
	cieRef uint64 // for an FDE: the section offset of its CIE
	body   buf    // the bytes after the CIE id / pointer
}

// readEntry reads the entry at off. It returns (nil, nil) at .eh_frame's
// zero terminator and at the end of the section.
func (s *Section) readEntry(off uint64) (*entry, error) {
	if off >= uint64(len(s.data)) {
		return nil, nil
	}
	b := buf{Data: s.data, Pos: int(off), Order: s.arch.Order}
	e := &entry{off: off}
	length := uint64(b.U32())
	if b.Err != nil {
		return nil, s.errAt(off, "truncated entry length")
	}
	if length == 0 && s.kind == EHFrame {
		return nil, nil // terminator
	}
	if length == 0xffffffff {
		e.is64 = true
		length = b.U64()
		if b.Err != nil {
			return nil, s.errAt(off, "truncated 64-bit entry length")
		}
	} else if length >= 0xfffffff0 {
		return nil, s.errAt(off, "reserved entry length %#x", length)
	}
	start := b.Off()
	if length > uint64(b.Left()) {
		return nil, s.errAt(off, "entry length %#x runs past the end of the section", length)
	}
	e.next = start + length
	idSize := 4
	if e.is64 {
		idSize = 8
	}
	if length < uint64(idSize) {
		return nil, s.errAt(off, "entry length %#x too short for its CIE id", length)
	}
	idAt := b.Off()
	id := b.Uint(idSize)
	switch s.kind {
	case EHFrame:
		if id == 0 {
			e.isCIE = true
		} else {
			if id > idAt {
				return nil, s.errAt(off, "CIE pointer %#x points before the section", id)
			}
			e.cieRef = idAt - id
		}
	case DebugFrame:
		if (e.is64 && id == ^uint64(0)) || (!e.is64 && id == 0xffffffff) {
			e.isCIE = true
		} else {
			e.cieRef = id
		}
	}
	e.body = buf{Data: s.data[b.Pos:e.next], Base: b.Off(), Order: s.arch.Order}
	return e, nil
}

// CIEAt parses the CIE at a section offset (cached).
func (s *Section) CIEAt(off uint64) (*CIE, error) {
	s.cieMu.Lock()
	c, ok := s.cies[off]
	s.cieMu.Unlock()
	if ok {
		return c, nil
	}
	e, err := s.readEntry(off)
	if err != nil {
		return nil, err
	}
	if e == nil || !e.isCIE {
		return nil, s.errAt(off, "no CIE at this offset")
	}
	c, err = s.parseCIE(e)
	if err != nil {
		return nil, err
	}
	s.cieMu.Lock()
	if len(s.cies) < 1<<16 { // a hostile file cannot grow the cache without bound
		s.cies[off] = c
	}
	s.cieMu.Unlock()
	return c, nil
}

func (s *Section) parseCIE(e *entry) (*CIE, error) {
	b := &e.body
	c := &CIE{Offset: e.off, AddressSize: uint8(s.arch.PtrSize), FDEEncoding: peAbsptr, LSDAEncoding: peOmit}
	c.Version = b.U8()
	switch {
	case s.kind == EHFrame && (c.Version == 1 || c.Version == 3):
	case s.kind == DebugFrame && (c.Version == 1 || c.Version == 3 || c.Version == 4):
	default:
		return nil, s.errAt(e.off, "CIE version %d not supported", c.Version)
	}
	c.Augmentation = b.CString()
	if c.Version == 4 {
		c.AddressSize = b.U8()
		if seg := b.U8(); seg != 0 {
			return nil, s.errAt(e.off, "CIE segment selector size %d not supported", seg)
		}
		if c.AddressSize != 4 && c.AddressSize != 8 {
			return nil, s.errAt(e.off, "CIE address size %d", c.AddressSize)
		}
	}
	if c.Augmentation == "eh" { // GCC 2.x: a pointer-sized EH data field
		b.Bytes(uint64(s.arch.PtrSize))
	}
	c.CodeAlign = b.ULEB()
	c.DataAlign = b.SLEB()
	if c.Version == 1 {
		c.RAReg = uint64(b.U8())
	} else {
		c.RAReg = b.ULEB()
	}
	if b.Err != nil {
		return nil, s.errAt(b.Off(), "CIE header: %v", b.Err)
	}
	if err := s.parseAugmentation(c, b); err != nil {
		return nil, err
	}
	c.instructionAt = b.Off()
	c.Instructions = b.Data[b.Pos:]
	return c, nil
}

func (s *Section) parseAugmentation(c *CIE, b *buf) error {
	aug := c.Augmentation
	if aug == "" || aug == "eh" {
		return nil
	}
	if aug[0] != 'z' {
		// Without 'z' there is no augmentation data: only letters that
		// carry none can be understood (GCC writes "S" in .debug_frame).
		for _, ch := range aug {
			switch ch {
			case 'S':
				c.SignalFrame = true
			case 'B':
				c.BKey = true
			default:
				return s.errAt(c.Offset, "CIE augmentation %q not supported", aug)
			}
		}
		return nil
	}
	c.hasAugData = true
	n := b.ULEB()
	data := b.Bytes(n)
	if b.Err != nil {
		return s.errAt(b.Off(), "CIE augmentation data: %v", b.Err)
	}
	dataOff := b.Off() - n
	ab := &buf{Data: data, Base: dataOff, Order: s.arch.Order}
	for _, ch := range aug[1:] {
		switch ch {
		case 'L':
			c.LSDAEncoding = ab.U8()
		case 'R':
			c.FDEEncoding = ab.U8()
		case 'P':
			enc := ab.U8()
			p, err := s.readPointer(ab, enc, 0)
			if err != nil {
				return err
			}
			c.Personality = p
		case 'S':
			c.SignalFrame = true
		case 'B':
			c.BKey = true
		case 'G': // AArch64 MTE tagged frames: nothing for unwinding
		default:
			// Unknown letters make the rest of the augmentation data
			// unreadable, but 'z' gives its length, so the instructions
			// are still found.
			return nil
		}
		if ab.Err != nil {
			return s.errAt(ab.Off(), "CIE augmentation %q: %v", aug, ab.Err)
		}
	}
	return nil
}

// readPointer reads a pointer in DW_EH_PE encoding enc. funcBase is the base
// of funcrel pointers.
func (s *Section) readPointer(b *buf, enc uint8, funcBase uint64) (uint64, error) {
	at := b.Off()
	if enc == peOmit {
		return 0, nil
	}
	if enc&peIndirect != 0 && s.kind == DebugFrame {
		return 0, s.errAt(at, "indirect pointer encoding %#x in .debug_frame", enc)
	}
	var base uint64
	switch enc & 0x70 {
	case peAbsptr:
	case pePCRel:
		if s.kind == EHFrame {
			base = s.addr + at
		}
	case peTextRel:
		base = s.arch.TextAddr
	case peDataRel:
		base = s.arch.DataAddr
	case peFuncRel:
		base = funcBase
	case peAligned:
		pad := (uint64(s.arch.PtrSize) - at%uint64(s.arch.PtrSize)) % uint64(s.arch.PtrSize)
		b.Bytes(pad)
	default:
		return 0, s.errAt(at, "pointer encoding %#x not supported", enc)
	}
	var v uint64
	switch enc & 0x0f {
	case peAbsptr:
		v = b.Uint(s.arch.PtrSize)
	case peULEB128:
		v = b.ULEB()
	case peUdata2:
		v = uint64(b.U16())
	case peUdata4:
		v = uint64(b.U32())
	case peUdata8:
		v = b.U64()
	case peSLEB128:
		v = uint64(b.SLEB())
	case peSdata2:
		v = uint64(int64(int16(b.U16())))
	case peSdata4:
		v = uint64(int64(int32(b.U32())))
	case peSdata8:
		v = b.U64()
	default:
		return 0, s.errAt(at, "pointer encoding %#x not supported", enc)
	}
	if b.Err != nil {
		return 0, s.errAt(at, "pointer: %v", b.Err)
	}
	v += base
	if s.arch.PtrSize == 4 {
		v &= 0xffffffff
	}
	// An indirect pointer names a location holding the value; we only need
	// such pointers for personality routines, whose value we do not use.
	return v, nil
}

// fdeAt parses the FDE at a section offset.
func (s *Section) fdeAt(e *entry) (*FDE, error) {
	c, err := s.CIEAt(e.cieRef)
	if err != nil {
		return nil, fmt.Errorf("FDE at %#x: %w", e.off, err)
	}
	b := &e.body
	f := &FDE{Offset: e.off, CIE: c, section: s}
	enc := c.FDEEncoding
	if s.kind == DebugFrame {
		enc = sizeEncoding(int(c.AddressSize))
	}
	f.Begin, err = s.readPointer(b, enc, 0)
	if err != nil {
		return nil, err
	}
	// The range is an address-sized length: pc-relative and other
	// applications do not apply to it.
	length, err := s.readPointer(b, enc&0x0f, 0)
	if err != nil {
		return nil, err
	}
	f.End = f.Begin + length
	if f.End < f.Begin {
		return nil, s.errAt(e.off, "FDE range %#x+%#x overflows", f.Begin, length)
	}
	if c.hasAugData {
		n := b.ULEB()
		data := b.Bytes(n)
		if b.Err != nil {
			return nil, s.errAt(b.Off(), "FDE augmentation data: %v", b.Err)
		}
		if c.LSDAEncoding != peOmit && len(data) > 0 {
			ab := &buf{Data: data, Base: b.Off() - n, Order: s.arch.Order}
			f.LSDA, _ = s.readPointer(ab, c.LSDAEncoding, f.Begin)
		}
	}
	f.instructionAt = b.Off()
	f.Instructions = b.Data[b.Pos:]
	return f, nil
}

func sizeEncoding(size int) uint8 {
	if size == 4 {
		return peUdata4
	}
	return peUdata8
}

// Entries parses the whole section and returns its FDEs in section order,
// empty ones included (linkers leave FDEs of discarded functions with a zero
// start or range).
// A malformed entry stops the walk with an error; the FDEs before it are
// returned with it.
func (s *Section) Entries() ([]*FDE, error) {
	var fdes []*FDE
	for off := uint64(0); ; {
		e, err := s.readEntry(off)
		if err != nil || e == nil {
			return fdes, err
		}
		if !e.isCIE {
			f, err := s.fdeAt(e)
			if err != nil {
				return fdes, err
			}
			fdes = append(fdes, f)
		} else if _, err := s.CIEAt(e.off); err != nil {
			return fdes, err
		}
		off = e.next
	}
}

// FDEAt parses the FDE at a section offset.
func (s *Section) FDEAt(off uint64) (*FDE, error) {
	e, err := s.readEntry(off)
	if err != nil {
		return nil, err
	}
	if e == nil || e.isCIE {
		return nil, s.errAt(off, "no FDE at this offset")
	}
	return s.fdeAt(e)
}

// ErrNotFound is returned by Find when no FDE covers the address.
var ErrNotFound = errors.New("elfcfi: no FDE covers the address")

// Find returns the FDE covering pc.
func (s *Section) Find(pc uint64) (*FDE, error) {
	if s.hdr != nil {
		return s.hdr.find(s, pc)
	}
	s.once.Do(s.buildIndex)
	if s.ierr != nil && len(s.index) == 0 {
		return nil, s.ierr
	}
	i := sort.Search(len(s.index), func(i int) bool { return s.index[i].begin > pc }) - 1
	// Ranges may overlap in sloppy or hostile files: the nearest start
	// below pc whose range covers it wins, looking a bounded way back.
	for n := 0; i >= 0 && n < maxOverlapScan; i, n = i-1, n+1 {
		if r := s.index[i]; pc < r.end {
			return s.FDEAt(r.off)
		}
	}
	return nil, ErrNotFound
}

const maxOverlapScan = 16

func (s *Section) buildIndex() {
	fdes, err := s.Entries()
	s.ierr = err
	s.index = make([]fdeRange, 0, len(fdes))
	for _, f := range fdes {
		if f.End > f.Begin {
			s.index = append(s.index, fdeRange{f.Begin, f.End, f.Offset})
		}
	}
	sort.SliceStable(s.index, func(i, j int) bool { return s.index[i].begin < s.index[j].begin })
}
