package pdb

import "fmt"

// DBI is the debug information stream (stream 3): the modules (one per
// object file or import), their section contributions, the section map
// and the numbers of the optional debug streams.
type DBI struct {
	Age               uint32
	GlobalStream      uint16
	PublicStream      uint16
	SymRecordStream   uint16
	Machine           uint16 // IMAGE_FILE_MACHINE_*: 0x14c x86, 0x8664 x64, 0xaa64 arm64
	Flags             uint16
	Modules           []Module
	SectionContribs   []SectionContrib
	SectionMap        []SectionMapEntry
	DebugStreams      [debugStreamCount]uint16 // 0xffff: absent
	numDebugStreams   int
	sectionHeaders    []SectionHeader
	sectionHeadersSet bool
}

// Optional debug stream indexes (DebugStreams).
const (
	DebugFPO = iota
	DebugException
	DebugFixup
	DebugOmapToSrc
	DebugOmapFromSrc
	DebugSectionHdr
	DebugTokenRIDMap
	DebugXdata
	DebugPdata
	DebugFrameData
	DebugSectionHdrOrig
	debugStreamCount
)

// NoStream is a stream number that names no stream.
const NoStream = 0xffff

// Module is one module (compiland) of the DBI stream.
type Module struct {
	Name        string // the object file or import name
	ObjFile     string // the library it came from, or Name
	Contrib     SectionContrib
	Flags       uint16
	SymStream   uint16 // NoStream: no symbols
	SymSize     uint32 // the symbols' bytes, signature included
	C11Size     uint32
	C13Size     uint32
	SourceFiles uint16
}

// SectionContrib is one contiguous piece of a section that a module
// contributed.
type SectionContrib struct {
	Section         uint16
	Offset          uint32
	Size            uint32
	Characteristics uint32
	Module          uint16
	DataCRC         uint32
	RelocCRC        uint32
}

// SectionMapEntry is one entry of the DBI section map.
type SectionMapEntry struct {
	Flags, Ovl, Group, Frame, SectionName, ClassName uint16
	Offset, Length                                   uint32
}

// SectionHeader is an IMAGE_SECTION_HEADER as copied into the PDB.
type SectionHeader struct {
	Name            string
	VirtualSize     uint32
	VirtualAddress  uint32
	SizeOfRawData   uint32
	Characteristics uint32
}

const (
	dbiHeaderSize      = 64
	modInfoFixedSize   = 64
	sectionContribSize = 28
	secContribVer60    = 0xeffe0000 + 19970605
	secContribV2       = 0xeffe0000 + 20140516
)

// DBI reads the DBI stream.
func (f *File) DBI() (*DBI, error) {
	if f.dbi != nil {
		return f.dbi, nil
	}
	b, err := f.Stream(StreamDBI)
	if err != nil {
		return nil, fmt.Errorf("DBI stream: %w", err)
	}
	d, err := parseDBI(b)
	if err != nil {
		return nil, err
	}
	f.dbi = d
	return d, nil
}

func parseDBI(b []byte) (*DBI, error) {
	r := newReader(StreamDBI, b, 0)
	sig, ver := r.u32(), r.u32()
	if r.err == nil && (sig != 0xffffffff || ver < 19960307) {
		return nil, errAt(StreamDBI, 0, "DBI header signature %#x version %d: not a new-format DBI stream", sig, ver)
	}
	d := &DBI{Age: r.u32(), GlobalStream: r.u16()}
	r.u16() // build number
	d.PublicStream = r.u16()
	r.u16() // PDB DLL version
	d.SymRecordStream = r.u16()
	r.u16()             // PDB DLL rebuild
	var sizes [7]uint32 // modules, contribs, section map, files, type server map, (MFC index), debug header, EC
	for i := range 4 {
		sizes[i] = r.u32()
	}
	sizes[4] = r.u32() // type server map
	r.u32()            // MFC type server index
	dbgSize := r.u32()
	ecSize := r.u32()
	d.Flags, d.Machine = r.u16(), r.u16()
	r.u32()
	if r.err != nil {
		return nil, r.err
	}
	parts := []uint32{sizes[0], sizes[1], sizes[2], sizes[3], sizes[4], ecSize, dbgSize}
	subs := make([]*reader, len(parts))
	off := dbiHeaderSize
	for i, n := range parts {
		if uint64(n) > uint64(len(b)-off) {
			return nil, errAt(StreamDBI, int64(off), "DBI substream %d of %d bytes, %d left", i, n, len(b)-off)
		}
		subs[i] = newReader(StreamDBI, b[off:off+int(n)], int64(off))
		off += int(n)
	}
	var err error
	if d.Modules, err = parseModules(subs[0]); err != nil {
		return nil, err
	}
	if d.SectionContribs, err = parseContribs(subs[1]); err != nil {
		return nil, err
	}
	if d.SectionMap, err = parseSectionMap(subs[2]); err != nil {
		return nil, err
	}
	dr := subs[6]
	d.numDebugStreams = min(dr.left()/2, debugStreamCount)
	for i := range d.DebugStreams {
		d.DebugStreams[i] = NoStream
		if i < d.numDebugStreams {
			d.DebugStreams[i] = dr.u16()
		}
	}
	return d, nil
}

func parseModules(r *reader) ([]Module, error) {
	var mods []Module
	for r.left() > 0 {
		start := r.off
		r.u32()
		m := Module{Contrib: readContrib(r)}
		m.Flags, m.SymStream = r.u16(), r.u16()
		m.SymSize, m.C11Size, m.C13Size = r.u32(), r.u32(), r.u32()
		m.SourceFiles = r.u16()
		r.u16()
		r.u32()
		r.u32()
		r.u32()
		m.Name, m.ObjFile = r.cstring(), r.cstring()
		r.align(4)
		if r.err != nil {
			return nil, fmt.Errorf("module %d at DBI offset %#x: %w", len(mods), r.base+int64(start), r.err)
		}
		mods = append(mods, m)
	}
	return mods, nil
}

func readContrib(r *reader) SectionContrib {
	var c SectionContrib
	c.Section = r.u16()
	r.u16()
	c.Offset, c.Size, c.Characteristics = r.u32(), r.u32(), r.u32()
	c.Module = r.u16()
	r.u16()
	c.DataCRC, c.RelocCRC = r.u32(), r.u32()
	return c
}

func parseContribs(r *reader) ([]SectionContrib, error) {
	if r.left() == 0 {
		return nil, nil
	}
	size := sectionContribSize
	switch v := r.u32(); v {
	case secContribVer60:
	case secContribV2:
		size += 4 // the COFF section index
	default:
		r.off -= 4
		r.fail("section contribution version %#x unknown", v)
		return nil, r.err
	}
	n := r.count(uint32(r.left()/size), size, "section contributions")
	out := make([]SectionContrib, 0, n)
	for range n {
		out = append(out, readContrib(r))
		if size > sectionContribSize {
			r.u32()
		}
	}
	return out, r.err
}

func parseSectionMap(r *reader) ([]SectionMapEntry, error) {
	if r.left() == 0 {
		return nil, nil
	}
	n := r.count(uint32(r.u16()), 20, "section map")
	r.u16() // logical count
	out := make([]SectionMapEntry, n)
	for i := range out {
		e := &out[i]
		e.Flags, e.Ovl, e.Group, e.Frame, e.SectionName, e.ClassName = r.u16(), r.u16(), r.u16(), r.u16(), r.u16(), r.u16()
		e.Offset, e.Length = r.u32(), r.u32()
	}
	return out, r.err
}

// debugStream returns the number of optional debug stream i, or false.
func (d *DBI) debugStream(i int) (int, bool) {
	s := d.DebugStreams[i]
	if s == NoStream {
		return 0, false
	}
	return int(s), true
}

// SectionHeaders reads the executable's section headers the linker copied
// into the PDB (the original ones where an OMAP reordered the image).
func (f *File) SectionHeaders() ([]SectionHeader, error) {
	d, err := f.DBI()
	if err != nil {
		return nil, err
	}
	if d.sectionHeadersSet {
		return d.sectionHeaders, nil
	}
	s, ok := d.debugStream(DebugSectionHdr)
	if !ok {
		d.sectionHeadersSet = true
		return nil, nil
	}
	b, err := f.Stream(s)
	if err != nil {
		return nil, fmt.Errorf("section headers: %w", err)
	}
	r := newReader(s, b, 0)
	n := r.count(uint32(len(b)/40), 40, "section headers")
	hs := make([]SectionHeader, n)
	for i := range hs {
		name := r.bytes(8, "section name")
		end := 0
		for end < 8 && name[end] != 0 {
			end++
		}
		hs[i].Name = string(name[:end])
		hs[i].VirtualSize, hs[i].VirtualAddress, hs[i].SizeOfRawData = r.u32(), r.u32(), r.u32()
		r.bytes(12, "section header")
		r.u32()
		hs[i].Characteristics = r.u32()
	}
	if r.err != nil {
		return nil, r.err
	}
	d.sectionHeaders, d.sectionHeadersSet = hs, true
	return hs, nil
}

// RVA converts a section:offset address (sections numbered from 1) to a
// relative virtual address; ok is false when the section is unknown.
func (f *File) RVA(section uint16, offset uint32) (uint32, bool) {
	hs, err := f.SectionHeaders()
	if err != nil || section == 0 || int(section) > len(hs) {
		return 0, false
	}
	return hs[section-1].VirtualAddress + offset, true
}
