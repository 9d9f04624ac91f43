package machofile

import (
	"debug/macho"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"
)

// MaxSectionBytes bounds the bytes SectionData reads of one section.
const MaxSectionBytes = 1 << 30

// Load command numbers debug/macho does not name.
const (
	lcUUID           = 0x1b
	lcFunctionStarts = 0x26
)

// File is one architecture of a Mach-O file.
type File struct {
	*macho.File
	Arch     string   // Breakpad's name of the architecture: x86_64, arm64, arm64e, x86, arm, ppc, ppc64
	UUID     [16]byte // LC_UUID, when HasUUID
	HasUUID  bool
	TextAddr uint64 // the __TEXT segment's address: module-relative addresses count from it

	r      io.ReaderAt // the slice's bytes
	size   int64
	closer io.Closer
}

// ArchName is Breakpad's name of a CPU type and subtype.
func ArchName(cpu macho.Cpu, sub uint32) string {
	switch cpu {
	case macho.CpuAmd64:
		return "x86_64"
	case macho.CpuArm64:
		if sub&0xff == 2 {
			return "arm64e"
		}
		return "arm64"
	case macho.Cpu386:
		return "x86"
	case macho.CpuArm:
		return "arm"
	case macho.CpuPpc:
		return "ppc"
	case macho.CpuPpc64:
		return "ppc64"
	}
	return fmt.Sprintf("cpu%#x", uint32(cpu))
}

// DebugID is Breakpad's debug id of the file: its UUID in hex, then "0";
// "" without LC_UUID.
func (f *File) DebugID() string {
	if !f.HasUUID {
		return ""
	}
	return fmt.Sprintf("%X0", f.UUID[:])
}

// Slices reads every architecture of the Mach-O file r of size bytes: one
// for a thin file, one per fat_arch for a universal file.
func Slices(r io.ReaderAt, size int64) ([]*File, error) {
	fat, err := newFat(r)
	if err == nil {
		var out []*File
		for _, a := range fat.Arches {
			if int64(a.Offset) > size || int64(a.Size) > size-int64(a.Offset) {
				return nil, formatErr(0, "fat_arch %s: slice at %#x of %#x bytes past the file's end (%#x)",
					ArchName(a.Cpu, a.SubCpu), a.Offset, a.Size, size)
			}
			f, err := newFile(io.NewSectionReader(r, int64(a.Offset), int64(a.Size)), int64(a.Size))
			if err != nil {
				return nil, fmt.Errorf("fat_arch %s at %#x: %w", ArchName(a.Cpu, a.SubCpu), a.Offset, err)
			}
			out = append(out, f)
		}
		return out, nil
	}
	if !errors.Is(err, macho.ErrNotFat) {
		return nil, wrapErr(err)
	}
	f, err := newFile(r, size)
	if err != nil {
		return nil, err
	}
	return []*File{f}, nil
}

// NewFile reads the architecture arch of the Mach-O file r; arch "" takes
// the only one (a fat file of several archs then is an error naming them).
func NewFile(r io.ReaderAt, size int64, arch string) (*File, error) {
	slices, err := Slices(r, size)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range slices {
		if f.Arch == arch || (arch == "" && len(slices) == 1) {
			return f, nil
		}
		names = append(names, f.Arch)
	}
	if arch == "" {
		return nil, fmt.Errorf("a universal file of %s: choose one architecture", strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("no architecture %s (the file has %s)", arch, strings.Join(names, ", "))
}

// WithUUID returns the slice of slices whose UUID is uuid, nil if none.
func WithUUID(slices []*File, uuid [16]byte) *File {
	for _, f := range slices {
		if f.HasUUID && f.UUID == uuid {
			return f
		}
	}
	return nil
}

// Open reads the architecture arch of the Mach-O file at path (see
// NewFile). The file stays open for SectionData and the like until Close.
func Open(path, arch string) (*File, error) {
	osf, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	f, err := NewFile(osf, size, arch)
	if err != nil {
		osf.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.closer = &onceCloser{c: osf}
	return f, nil
}

// MaxFileBytes bounds the size of a Mach-O file Open and OpenSlices read.
const MaxFileBytes = 1 << 40

func openFile(path string) (*os.File, int64, error) {
	osf, _, err := regfile.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := osf.Stat()
	if err != nil {
		osf.Close()
		return nil, 0, err
	}
	if st.Size() > MaxFileBytes {
		osf.Close()
		return nil, 0, fmt.Errorf("%s: %d bytes, more than the %d a Mach-O file may have here", path, st.Size(), int64(MaxFileBytes))
	}
	return osf, st.Size(), nil
}

// OpenSlices is Slices of the file at path; closing any slice closes the
// file.
func OpenSlices(path string) ([]*File, error) {
	osf, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Slices(osf, size)
	if err != nil {
		osf.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c := &onceCloser{c: osf}
	for _, f := range s {
		f.closer = c
	}
	return s, nil
}

// Close closes the file Open or OpenSlices opened; a File made by NewFile
// or Slices has nothing to close.
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	return f.closer.Close()
}

type onceCloser struct {
	once sync.Once
	c    io.Closer
	err  error
}

func (o *onceCloser) Close() error {
	o.once.Do(func() { o.err = o.c.Close() })
	return o.err
}

// newFat and newMachO run debug/macho, turning a panic on malformed input
// into an error.
func newFat(r io.ReaderAt) (ff *macho.FatFile, err error) {
	defer func() {
		if p := recover(); p != nil {
			ff, err = nil, formatErr(0, "malformed fat header: %v", p)
		}
	}()
	return macho.NewFatFile(r)
}

func newMachO(r io.ReaderAt) (mf *macho.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			mf, err = nil, formatErr(0, "malformed Mach-O header or load commands: %v", p)
		}
	}()
	return macho.NewFile(r)
}

func wrapErr(err error) error {
	var fe *macho.FormatError
	if errors.As(err, &fe) {
		return &FormatError{Offset: offsetOf(fe), Msg: err.Error(), Err: err}
	}
	if _, ok := err.(*FormatError); ok {
		return err
	}
	return &FormatError{Msg: err.Error(), Err: err}
}

// offsetOf reads the offset debug/macho's FormatError prints ("... in
// record at byte %#x"); its field is unexported.
func offsetOf(fe *macho.FormatError) int64 {
	s := fe.Error()
	i := strings.LastIndex(s, "at byte ")
	if i < 0 {
		return 0
	}
	var off int64
	fmt.Sscanf(s[i+len("at byte "):], "%v", &off)
	return off
}

func newFile(r io.ReaderAt, size int64) (*File, error) {
	mf, err := newMachO(r)
	if err != nil {
		return nil, wrapErr(err)
	}
	f := &File{File: mf, Arch: ArchName(mf.Cpu, mf.SubCpu), r: r, size: size}
	for _, l := range mf.Loads {
		raw := l.Raw()
		if len(raw) >= 24 && f.ByteOrder.Uint32(raw) == lcUUID {
			copy(f.UUID[:], raw[8:24])
			f.HasUUID = true
		}
	}
	if seg := mf.Segment("__TEXT"); seg != nil {
		f.TextAddr = seg.Addr
	}
	return f, nil
}

// SectionData returns the bytes of section name of segment seg, nil when
// the file has no such section (or it is zero-fill).
func (f *File) SectionData(seg, name string) ([]byte, *macho.Section, error) {
	for _, s := range f.Sections {
		if s.Seg != seg || s.Name != name {
			continue
		}
		typ := s.Flags & 0xff
		if typ == 0x1 || typ == 0xc || typ == 0x12 { // S_ZEROFILL, S_GB_ZEROFILL, S_THREAD_LOCAL_ZEROFILL
			return nil, s, nil
		}
		if s.Size > MaxSectionBytes || int64(s.Offset) > f.size || int64(s.Size) > f.size-int64(s.Offset) {
			return nil, s, formatErr(int64(s.Offset), "section %s,%s of %#x bytes past the file's end (%#x)", seg, name, s.Size, f.size)
		}
		data := make([]byte, s.Size)
		if _, err := f.r.ReadAt(data, int64(s.Offset)); err != nil {
			return nil, s, formatErr(int64(s.Offset), "section %s,%s: %v", seg, name, err)
		}
		return data, s, nil
	}
	return nil, nil, nil
}

// FunctionStarts returns the addresses LC_FUNCTION_STARTS lists (ULEB128
// deltas from the __TEXT segment's address), in order; nil without the
// command.
func (f *File) FunctionStarts() ([]uint64, error) {
	for _, l := range f.Loads {
		raw := l.Raw()
		if len(raw) < 16 || f.ByteOrder.Uint32(raw) != lcFunctionStarts {
			continue
		}
		off, n := int64(f.ByteOrder.Uint32(raw[8:])), int64(f.ByteOrder.Uint32(raw[12:]))
		if off > f.size || n > f.size-off {
			return nil, formatErr(off, "LC_FUNCTION_STARTS data of %#x bytes past the file's end (%#x)", n, f.size)
		}
		data := make([]byte, n)
		if _, err := f.r.ReadAt(data, off); err != nil {
			return nil, formatErr(off, "LC_FUNCTION_STARTS: %v", err)
		}
		return decodeStarts(data, off, f.TextAddr)
	}
	return nil, nil
}

func decodeStarts(data []byte, fileOff int64, addr uint64) ([]uint64, error) {
	var out []uint64
	for i := 0; i < len(data); {
		delta, n := binary.Uvarint(data[i:])
		if n <= 0 {
			return out, formatErr(fileOff+int64(i), "LC_FUNCTION_STARTS: malformed ULEB128")
		}
		i += n
		if delta == 0 {
			break
		}
		if addr+delta < addr {
			return out, formatErr(fileOff+int64(i-n), "LC_FUNCTION_STARTS: address overflows")
		}
		addr += delta
		out = append(out, addr)
	}
	return out, nil
}
