package symfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"sync"
	"unsafe"
)

// The on-disk index of a symbol file holds the arrays that the index pass
// builds (see merge), so that a later process maps them instead of reading
// the whole symbol file again. Lookups then run the same code over the
// mapped arrays as over the in-memory ones, and touch only the pages their
// binary searches and records reach.
//
// Layout (integers in the header are little-endian; the arrays are in the
// host's byte order, which the header records, so they can be used in place):
//
//	0   magic "MDSWIDX\n"
//	8   version (u32)
//	12  byte-order mark 0x01020304 in host order (u32)
//	16  total size of the index file (u64)
//	24  CRC-32C of bytes [32, total size) (u32), then 4 bytes of padding
//	32  identity of the symbol file the index was made from (48 bytes)
//	80  identity of the data the offsets refer to: the same file, or its
//	    decompressed copy for a .sym.gz / .sym.zst (48 bytes)
//	128 section table: numSections × (offset u64, length u64)
//	... sections, each starting at a multiple of 8
const (
	indexMagic      = "MDSWIDX\n"
	indexVersion    = 2 // 2: the narrow layout's sections (indexlayout.go)
	byteOrderMark   = 0x01020304
	crcStart        = 32
	sectionTableOff = 128
	numSections     = 13
	indexHeaderSize = sectionTableOff + numSections*16
)

// Sections of the index file, in file order. FUNC, PUBLIC and STACK CFI
// INIT records fill the section of their layout, wide or narrow
// (indexlayout.go), and leave the other empty.
const (
	secFuncs = iota
	secPubs
	secCFI
	secFuncs32
	secPubs32
	secCFI32
	secWin
	secWinType
	secFiles
	secOrigins
	secInfo
	secErrs
	secMeta
)

// entrySize is the size of one element of each array section (1 for the
// encoded ones, errs and meta).
var entrySize = [numSections]uint64{
	secFuncs:   uint64(unsafe.Sizeof(funcEntry{})),
	secPubs:    uint64(unsafe.Sizeof(pubEntry{})),
	secCFI:     uint64(unsafe.Sizeof(rangeEntry{})),
	secFuncs32: uint64(unsafe.Sizeof(funcEntry32{})),
	secPubs32:  uint64(unsafe.Sizeof(pubEntry32{})),
	secCFI32:   uint64(unsafe.Sizeof(cfiEntry32{})),
	secWin:     uint64(unsafe.Sizeof(winEntry{})),
	secWinType: 1,
	secFiles:   uint64(unsafe.Sizeof(idEntry{})),
	secOrigins: uint64(unsafe.Sizeof(idEntry{})),
	secInfo:    8,
	secErrs:    1,
	secMeta:    1,
}

// castagnoli is the CRC-32C table, made on first use: a package-level
// table would be computed at every process start, index or not.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// identity names the exact content of a file: its size, modification time
// and a hash of its change stamp and sampled content (fileIdentity).
type identity struct {
	size  uint64
	mtime int64 // nanoseconds since the epoch; 0 for a decompressed copy
	hash  [32]byte
}

func (id identity) put(b []byte) {
	binary.LittleEndian.PutUint64(b, id.size)
	binary.LittleEndian.PutUint64(b[8:], uint64(id.mtime))
	copy(b[16:48], id.hash[:])
}

func getIdentity(b []byte) identity {
	var id identity
	id.size = binary.LittleEndian.Uint64(b)
	id.mtime = int64(binary.LittleEndian.Uint64(b[8:]))
	copy(id.hash[:], b[16:48])
	return id
}

// asBytes views a slice of plain-data entries as bytes.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z)))
}

// fromBytes views b (8-byte aligned, a whole number of entries) as []T.
func fromBytes[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// encoder appends the variable-length sections.
type encoder []byte

func (e *encoder) u64(v uint64) { *e = binary.LittleEndian.AppendUint64(*e, v) }
func (e *encoder) str(s string) {
	*e = binary.LittleEndian.AppendUint32(*e, uint32(len(s)))
	*e = append(*e, s...)
}

// decoder reads them back, failing on any length that runs past the end.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) u64() uint64 {
	if len(d.b) < 8 {
		d.err = errors.New("truncated section")
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) str() string {
	if len(d.b) < 4 {
		d.err = errors.New("truncated section")
		return ""
	}
	n := uint64(binary.LittleEndian.Uint32(d.b))
	if n > uint64(len(d.b)-4) {
		d.err = errors.New("string runs past its section")
		return ""
	}
	s := string(d.b[4 : 4+n])
	d.b = d.b[4+n:]
	return s
}

// indexMeta is what the meta section holds besides the arrays.
type indexMeta struct {
	source string // absolute path of the symbol file
	limit  uint64
	module ModuleLine
	codeID string
}

func encodeMeta(m indexMeta) []byte {
	var e encoder
	e.str(m.source)
	e.u64(m.limit)
	for _, s := range []string{m.module.OS, m.module.Arch, m.module.ID, m.module.Name, m.codeID} {
		e.str(s)
	}
	return e
}

func decodeMeta(b []byte) (indexMeta, error) {
	d := decoder{b: b}
	var m indexMeta
	m.source = d.str()
	m.limit = d.u64()
	m.module.OS, m.module.Arch, m.module.ID, m.module.Name = d.str(), d.str(), d.str(), d.str()
	m.codeID = d.str()
	return m, d.err
}

func encodeErrs(errs []lineError) []byte {
	var e encoder
	e.u64(uint64(len(errs)))
	for _, le := range errs {
		e.u64(uint64(le.line))
		e.u64(le.off)
		e.str(le.msg)
	}
	return e
}

func decodeErrs(b []byte) ([]lineError, error) {
	d := decoder{b: b}
	n := d.u64()
	if n > maxErrors+1 {
		return nil, fmt.Errorf("%d errors recorded, at most %d kept", n, maxErrors+1)
	}
	out := make([]lineError, 0, n)
	for range n {
		line, off, msg := d.u64(), d.u64(), d.str()
		if d.err != nil {
			return nil, d.err
		}
		if line > 1<<40 {
			return nil, fmt.Errorf("error line %d out of range", line)
		}
		out = append(out, lineError{line: int(line), off: off, msg: msg})
	}
	return out, d.err
}

// writeIndex writes the index of f, made from the file src (identity
// srcID, absolute path source) whose data has identity dataID.
func writeIndex(w io.Writer, f *File, source string, srcID, dataID identity) error {
	sections := [numSections][]byte{
		secFuncs:   asBytes(f.funcs.wide),
		secPubs:    asBytes(f.pubs.wide),
		secCFI:     asBytes(f.cfi.wide),
		secFuncs32: asBytes(f.funcs.narrow),
		secPubs32:  asBytes(f.pubs.narrow),
		secCFI32:   asBytes(f.cfi.narrow),
		secWin:     asBytes(f.win),
		secWinType: f.winType,
		secFiles:   asBytes(f.files),
		secOrigins: asBytes(f.origins),
		secInfo:    asBytes(f.info),
		secErrs:    encodeErrs(f.errs),
		secMeta:    encodeMeta(indexMeta{source: source, limit: f.limit, module: f.module, codeID: f.codeID}),
	}
	hdr := make([]byte, indexHeaderSize)
	copy(hdr, indexMagic)
	binary.LittleEndian.PutUint32(hdr[8:], indexVersion)
	binary.NativeEndian.PutUint32(hdr[12:], byteOrderMark)
	srcID.put(hdr[32:])
	dataID.put(hdr[80:])
	off := uint64(indexHeaderSize)
	for i, s := range sections {
		off = align8(off)
		binary.LittleEndian.PutUint64(hdr[sectionTableOff+16*i:], off)
		binary.LittleEndian.PutUint64(hdr[sectionTableOff+16*i+8:], uint64(len(s)))
		off += uint64(len(s))
	}
	binary.LittleEndian.PutUint64(hdr[16:], off)
	if wa, ok := w.(io.WriterAt); ok {
		return writeSectionsFirst(w, wa, hdr, sections)
	}
	binary.LittleEndian.PutUint32(hdr[24:], indexCRC(hdr, sections))
	// Each part goes to w whole: the arrays are most of the index (67 MB
	// for the stress file), and a buffered writer copied them once more.
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	return writeSections(w, sections)
}

// writeSectionsFirst writes the index to a file: the header with its CRC
// left zero, the sections, and then the header again with the CRC, which
// a goroutine computes while the sections are written: serially the CRC
// of the stress file's 67 MB of sections held up the write's start by
// 15-25 ms. The bytes written are writeIndex's (TestIndexWriteAt).
func writeSectionsFirst(w io.Writer, wa io.WriterAt, hdr []byte, sections [numSections][]byte) error {
	crc := make(chan uint32, 1)
	go func() { crc <- indexCRC(hdr, sections) }()
	_, err := w.Write(hdr) // the CRC is still zero: hdr is not changed while the goroutine reads it
	if err == nil {
		err = writeSections(w, sections)
	}
	sum := <-crc
	if err != nil {
		return err
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], sum)
	_, err = wa.WriteAt(b[:], 24)
	return err
}

// indexCRC is the CRC-32C of the index from byte crcStart on: the header's
// rest (its CRC field zero) and the sections, aligned as writeSections
// writes them.
func indexCRC(hdr []byte, sections [numSections][]byte) uint32 {
	crc := crc32.New(castagnoli())
	crc.Write(hdr[crcStart:])
	pos := uint64(indexHeaderSize)
	var pad [8]byte
	for _, s := range sections {
		crc.Write(pad[:align8(pos)-pos])
		pos = align8(pos) + uint64(len(s))
		crc.Write(s)
	}
	return crc.Sum32()
}

// writeSections writes the sections after the header, each whole.
func writeSections(w io.Writer, sections [numSections][]byte) error {
	pos := uint64(indexHeaderSize)
	var pad [8]byte
	for _, s := range sections {
		if _, err := w.Write(pad[:align8(pos)-pos]); err != nil {
			return err
		}
		pos = align8(pos) + uint64(len(s))
		if _, err := w.Write(s); err != nil {
			return err
		}
	}
	return nil
}

func align8(n uint64) uint64 { return (n + 7) &^ 7 }

// indexHeader is the parsed, checked header of an index file.
type indexHeader struct {
	src, data identity
	sections  [numSections][2]uint64 // offset, length
}

// parseIndexHeader checks the fixed part of an index file of size bytes.
// It does not check the CRC (see checkIndexCRC).
func parseIndexHeader(hdr []byte, size uint64) (indexHeader, error) {
	var h indexHeader
	if len(hdr) < indexHeaderSize || string(hdr[:8]) != indexMagic {
		return h, errors.New("not an index file")
	}
	if v := binary.LittleEndian.Uint32(hdr[8:]); v != indexVersion {
		return h, fmt.Errorf("%w: index version %d, want %d", errStale, v, indexVersion)
	}
	if binary.NativeEndian.Uint32(hdr[12:]) != byteOrderMark {
		return h, errors.New("index made on a host of the other byte order")
	}
	if total := binary.LittleEndian.Uint64(hdr[16:]); total != size {
		return h, fmt.Errorf("index file is %d bytes, its header says %d", size, total)
	}
	h.src = getIdentity(hdr[32:])
	h.data = getIdentity(hdr[80:])
	prev := uint64(indexHeaderSize)
	for i := range h.sections {
		off := binary.LittleEndian.Uint64(hdr[sectionTableOff+16*i:])
		n := binary.LittleEndian.Uint64(hdr[sectionTableOff+16*i+8:])
		if off%8 != 0 || off < prev || off > size || n > size-off || n%entrySize[i] != 0 {
			return h, fmt.Errorf("section %d (offset %d, %d bytes) out of place", i, off, n)
		}
		h.sections[i] = [2]uint64{off, n}
		prev = off + n
	}
	return h, nil
}

// crcOf feeds m[start:] to h in windows of the mapping m, mapping each
// window in and releasing it after (page boundaries are counted from m's
// start, which is page-aligned), so that checking a large index does not
// leave it all counted in the process's memory.
func crcOf(h hash.Hash32, m []byte, start int, release bool) {
	const window = 4 << 20
	for lo := start; lo < len(m); lo = (lo/window + 1) * window {
		hi := min((lo/window+1)*window, len(m))
		if release {
			prefaultPages(m, lo, hi)
		}
		h.Write(m[lo:hi])
		if release {
			releasePages(m, lo, hi)
		}
	}
}

// uintptrOf is the address of b's first byte (b not empty).
func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
