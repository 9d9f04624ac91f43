package pe

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"
)

// Machine types (IMAGE_FILE_MACHINE_*) the walkers know.
const (
	MachineI386  = 0x14c
	MachineAMD64 = 0x8664
	MachineARM   = 0x1c4 // ARMNT (Thumb-2)
	MachineARM64 = 0xaa64
)

// Data directory indexes (IMAGE_DIRECTORY_ENTRY_*).
const (
	DirExport    = 0
	DirException = 3
	DirDebug     = 6
)

// Section characteristics (IMAGE_SCN_*).
const (
	SectionCode    = 0x00000020
	SectionExecute = 0x20000000
)

// Bounds on what a header may announce. The Windows loader refuses more
// than 96 sections; the rest keep a hostile header from making us read or
// allocate more than the file holds.
const (
	MaxSections   = 96
	maxDataDirs   = 16
	maxHeaderSize = 1 << 20
)

var le = binary.LittleEndian

// DataDirectory is one entry of the optional header's data directories.
type DataDirectory struct {
	RVA, Size uint32
}

// Section is a section header.
type Section struct {
	Name             string
	VirtualSize      uint32
	VirtualAddress   uint32
	SizeOfRawData    uint32
	PointerToRawData uint32
	Characteristics  uint32
}

// Executable reports whether the section holds code.
func (s *Section) Executable() bool {
	return s.Characteristics&(SectionExecute|SectionCode) != 0
}

// span is the section's extent in the image: its virtual size, or its raw
// size when the virtual size is zero (as the loader maps it).
func (s *Section) span() uint32 {
	if s.VirtualSize != 0 {
		return s.VirtualSize
	}
	return s.SizeOfRawData
}

// File is an open PE image.
type File struct {
	Machine       uint16
	TimeDateStamp uint32
	Is64          bool   // PE32+
	ImageBase     uint64 // preferred load address
	EntryPoint    uint32 // AddressOfEntryPoint (RVA; 0 for most DLLs without one)
	SizeOfImage   uint32
	SizeOfHeaders uint32
	Sections      []Section
	Dirs          []DataDirectory // NumberOfRvaAndSizes entries, at most 16

	r      io.ReaderAt
	size   int64
	closer io.Closer
}

// Open opens the named file as a PE image.
func Open(name string) (*File, error) {
	fh, _, err := regfile.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	f, err := NewFile(fh, st.Size())
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f.closer = fh
	return f, nil
}

// Close closes the file opened by Open.
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	return f.closer.Close()
}

// Size is the file's size in bytes.
func (f *File) Size() int64 { return f.size }

// NewFile reads the headers of the image in r, size bytes long.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	f := &File{r: r, size: size}
	dos, err := f.readAt("DOS header", 0, 64)
	if err != nil {
		return nil, err
	}
	if dos[0] != 'M' || dos[1] != 'Z' {
		return nil, offErr("DOS header", 0, "no MZ signature")
	}
	peOff := int64(le.Uint32(dos[0x3c:]))
	hdr, err := f.readAt("PE header", peOff, 24)
	if err != nil {
		return nil, err
	}
	if string(hdr[:4]) != "PE\x00\x00" {
		return nil, offErr("PE header", peOff, "no PE signature")
	}
	f.Machine = le.Uint16(hdr[4:])
	nsect := int(le.Uint16(hdr[6:]))
	f.TimeDateStamp = le.Uint32(hdr[8:])
	symtab, nsyms := le.Uint32(hdr[12:]), le.Uint32(hdr[16:])
	optSize := int64(le.Uint16(hdr[20:]))
	optOff := peOff + 24
	if err := f.readOptional(optOff, optSize); err != nil {
		return nil, err
	}
	if nsect > MaxSections {
		return nil, offErr("COFF header", peOff+6, "%d sections, more than %d", nsect, MaxSections)
	}
	secOff := optOff + optSize
	raw, err := f.readAt("section table", secOff, nsect*40)
	if err != nil {
		return nil, err
	}
	f.Sections = make([]Section, nsect)
	for i := range f.Sections {
		b := raw[i*40:]
		s := &f.Sections[i]
		s.Name = f.sectionName(b[:8], symtab, nsyms)
		s.VirtualSize = le.Uint32(b[8:])
		s.VirtualAddress = le.Uint32(b[12:])
		s.SizeOfRawData = le.Uint32(b[16:])
		s.PointerToRawData = le.Uint32(b[20:])
		s.Characteristics = le.Uint32(b[36:])
	}
	return f, nil
}

func (f *File) readOptional(off, size int64) error {
	if size < 2 {
		return offErr("optional header", off, "size %d", size)
	}
	magic, err := f.readAt("optional header", off, 2)
	if err != nil {
		return err
	}
	var dirOff, minSize int64
	var nDirsAt int64
	switch le.Uint16(magic) {
	case 0x10b:
		minSize, nDirsAt, dirOff = 96, 92, 96
	case 0x20b:
		f.Is64 = true
		minSize, nDirsAt, dirOff = 112, 108, 112
	default:
		return offErr("optional header", off, "unknown magic %#x", le.Uint16(magic))
	}
	if size < minSize {
		return offErr("optional header", off, "size %d, less than %d", size, minSize)
	}
	b, err := f.readAt("optional header", off, int(minSize))
	if err != nil {
		return err
	}
	f.EntryPoint = le.Uint32(b[16:])
	if f.Is64 {
		f.ImageBase = le.Uint64(b[24:])
	} else {
		f.ImageBase = uint64(le.Uint32(b[28:]))
	}
	f.SizeOfImage = le.Uint32(b[56:])
	f.SizeOfHeaders = le.Uint32(b[60:])
	n := int64(le.Uint32(b[nDirsAt:]))
	if n > maxDataDirs {
		n = maxDataDirs // the loader ignores directories past the 16th
	}
	if n > (size-dirOff)/8 {
		return offErr("optional header", off+nDirsAt, "%d data directories do not fit in %d bytes", n, size)
	}
	d, err := f.readAt("data directories", off+dirOff, int(n*8))
	if err != nil {
		return err
	}
	f.Dirs = make([]DataDirectory, n)
	for i := range f.Dirs {
		f.Dirs[i] = DataDirectory{RVA: le.Uint32(d[i*8:]), Size: le.Uint32(d[i*8+4:])}
	}
	return nil
}

// sectionName resolves a "/N" long name through the COFF string table
// (MinGW's .debug_* sections); a name that cannot be resolved is kept.
func (f *File) sectionName(b []byte, symtab, nsyms uint32) string {
	name := strings.TrimRight(string(b), "\x00")
	if len(name) < 2 || name[0] != '/' || symtab == 0 {
		return name
	}
	n, err := strconv.ParseUint(name[1:], 10, 32)
	if err != nil {
		return name
	}
	off := int64(symtab) + int64(nsyms)*18 + int64(n)
	s, err := f.cString("section name", off, 256)
	if err != nil {
		return name
	}
	return s
}

// Dir returns data directory i, zero when the image has none.
func (f *File) Dir(i int) DataDirectory {
	if i < len(f.Dirs) {
		return f.Dirs[i]
	}
	return DataDirectory{}
}

// SectionAt returns the section containing rva, nil if none does.
func (f *File) SectionAt(rva uint32) *Section {
	for i := range f.Sections {
		s := &f.Sections[i]
		if rva >= s.VirtualAddress && rva-s.VirtualAddress < s.span() {
			return s
		}
	}
	return nil
}

// Section returns the first section with the given name, nil if none.
func (f *File) Section(name string) *Section {
	for i := range f.Sections {
		if f.Sections[i].Name == name {
			return &f.Sections[i]
		}
	}
	return nil
}

// rawStart is where a section's raw data starts: the loader rounds
// PointerToRawData down to 512 bytes.
func rawStart(s *Section) int64 { return int64(s.PointerToRawData &^ 0x1ff) }

// ReadRVA fills p with the image's bytes at rva as the loader maps them:
// a section's bytes past its raw data read as zero; the headers map at
// RVA 0. It fails when any byte lies outside the headers and sections.
func (f *File) ReadRVA(rva uint32, p []byte) error {
	for len(p) > 0 {
		n, err := f.readRVAPart(rva, p)
		if err != nil {
			return err
		}
		p = p[n:]
		if len(p) > 0 && uint64(rva)+uint64(n) > 0xffffffff {
			return rvaErr("image", rva, "read past 4 GiB")
		}
		rva += uint32(n)
	}
	return nil
}

// readRVAPart reads what of p lies in the region containing rva.
func (f *File) readRVAPart(rva uint32, p []byte) (int, error) {
	if s := f.SectionAt(rva); s != nil {
		in := rva - s.VirtualAddress
		n := min(uint64(len(p)), uint64(s.span()-in))
		q := p[:n]
		clear(q)
		if in < s.SizeOfRawData {
			m := min(n, uint64(s.SizeOfRawData-in))
			if err := f.readFull("section "+s.Name, rawStart(s)+int64(in), q[:m]); err != nil {
				return 0, err
			}
		}
		return int(n), nil
	}
	if rva < f.SizeOfHeaders && int64(rva) < f.size {
		n := min(uint64(len(p)), uint64(f.SizeOfHeaders-rva))
		if err := f.readFull("headers", int64(rva), p[:n]); err != nil {
			return 0, err
		}
		return int(n), nil
	}
	return 0, rvaErr("image", rva, "not in any section")
}

// BytesAtRVA returns n bytes at rva (see ReadRVA).
func (f *File) BytesAtRVA(what string, rva uint32, n int) ([]byte, error) {
	if n < 0 || int64(n) > f.size+int64(f.SizeOfImage) {
		return nil, rvaErr(what, rva, "%d bytes is more than the image holds", n)
	}
	p := make([]byte, n)
	if err := f.ReadRVA(rva, p); err != nil {
		var fe *FormatError
		if asFormat(err, &fe) {
			fe.What = what + ": " + fe.What
		}
		return nil, err
	}
	return p, nil
}

func asFormat(err error, fe **FormatError) bool {
	e, ok := err.(*FormatError)
	if ok {
		*fe = e
	}
	return ok
}

// readAt reads n bytes at file offset off.
func (f *File) readAt(what string, off int64, n int) ([]byte, error) {
	if n < 0 || n > maxHeaderSize<<8 {
		return nil, offErr(what, off, "%d bytes", n)
	}
	p := make([]byte, n)
	if err := f.readFull(what, off, p); err != nil {
		return nil, err
	}
	return p, nil
}

func (f *File) readFull(what string, off int64, p []byte) error {
	if off < 0 || off > f.size || int64(len(p)) > f.size-off {
		return offErr(what, off, "%d bytes past the end of the file (%d bytes)", len(p), f.size)
	}
	if len(p) == 0 {
		return nil
	}
	if n, err := f.r.ReadAt(p, off); err != nil && n < len(p) {
		return fmt.Errorf("pe: %s at offset %#x: %w", what, off, err)
	}
	return nil
}

// cString reads a NUL-terminated string of at most max bytes at off.
func (f *File) cString(what string, off int64, max int) (string, error) {
	if off < 0 || off >= f.size {
		return "", offErr(what, off, "past the end of the file")
	}
	n := int64(max) + 1
	if n > f.size-off {
		n = f.size - off
	}
	b, err := f.readAt(what, off, int(n))
	if err != nil {
		return "", err
	}
	for i, c := range b {
		if c == 0 {
			return string(b[:i]), nil
		}
	}
	return "", offErr(what, off, "no NUL in %d bytes", len(b))
}

// stringAtRVA reads a NUL-terminated string of at most max bytes at rva.
func (f *File) stringAtRVA(what string, rva uint32, max int) (string, error) {
	var buf [64]byte
	var out []byte
	for len(out) <= max {
		n := len(buf)
		if s := f.SectionAt(rva); s != nil && uint64(s.span()-(rva-s.VirtualAddress)) < uint64(n) {
			n = int(s.span() - (rva - s.VirtualAddress))
		}
		if err := f.ReadRVA(rva, buf[:n]); err != nil {
			return "", rvaErr(what, rva, "string not in the image")
		}
		for i := 0; i < n; i++ {
			if buf[i] == 0 {
				return string(append(out, buf[:i]...)), nil
			}
		}
		out = append(out, buf[:n]...)
		if uint64(rva)+uint64(n) > 0xffffffff {
			break
		}
		rva += uint32(n)
	}
	return "", rvaErr(what, rva, "string longer than %d bytes", max)
}
