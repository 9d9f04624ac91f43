package minidump

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"unicode/utf16"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/mapfault"
)

// Signature is "MDMP" read as a little-endian uint32.
const Signature = 0x504d444d

// headerSize and dirEntrySize are the sizes of MINIDUMP_HEADER and MINIDUMP_DIRECTORY.
const (
	headerSize   = 32
	dirEntrySize = 12
)

// FormatError reports malformed data: the stream it was found in ("header",
// "directory" or a stream name) and the file offset.
type FormatError struct {
	Off    int64
	Stream string
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("minidump: %s at offset %#x: %s", e.Stream, e.Off, e.Msg)
}

// ErrNoStream is wrapped by accessors whose stream is absent from the dump.
var ErrNoStream = errNoStream{}

type errNoStream struct{}

func (errNoStream) Error() string { return "stream not present" }

// noStreamError is the error for an absent stream of a type, wrapping
// ErrNoStream. It is formatted only when printed: processing asks for
// many streams a dump may lack, and fmt.Errorf allocated for each.
type noStreamError StreamType

func (e noStreamError) Error() string {
	return "minidump: " + StreamType(e).String() + ": " + ErrNoStream.Error()
}

func (noStreamError) Unwrap() error { return ErrNoStream }

// Header is MINIDUMP_HEADER.
type Header struct {
	Signature     uint32
	Version       uint32 // low 16 bits: MINIDUMP_VERSION (0xa793)
	NumStreams    uint32
	DirectoryRVA  uint32
	Checksum      uint32
	TimeDateStamp uint32 // seconds since the Unix epoch when the dump was written
	Flags         uint64
}

// StreamInfo describes one directory entry.
type StreamInfo struct {
	Type StreamType
	Name string // Breakpad's name of the stream type, or "unknown (0x...)"
	Off  int64  // file offset of the stream data
	Size uint32
}

// File is an open minidump. Its accessors parse streams on demand; the data
// is read through an io.ReaderAt (a memory map when opened by Open).
type File struct {
	Header Header

	r      io.ReaderAt
	data   []byte // the whole file when memory-mapped, else nil
	size   int64
	closer func() error
	dir    []StreamInfo
	mapped bool // data is a memory map, gone at Close

	// The system info is consulted by several accessors (context layout,
	// module code ids, auxv word size); parse it once.
	sysOnce sync.Once
	sysInfo *SystemInfo
	sysErr  error
	// The memory list is read by the processor and the crash analysis.
	memOnce sync.Once
	mem     *MemoryList
	memErr  error
}

// Open memory-maps the named file (or reads through the file handle where
// mapping is unavailable) and parses its header and stream directory.
func Open(path string) (*File, error) {
	osf, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := osf.Stat()
	if err != nil {
		osf.Close()
		return nil, err
	}
	size := st.Size()
	if size > 0 && size <= readWholeBytes {
		return openRead(osf, path, size)
	}
	data, unmap, err := mapFile(osf, size)
	if err != nil || data == nil {
		// Fall back to reading through the descriptor.
		f, ferr := NewFile(osf, size)
		if ferr != nil {
			osf.Close()
			return nil, ferr
		}
		f.closer = osf.Close
		return f, nil
	}
	osf.Close() // the mapping stays valid after the descriptor is closed
	f, err := newMapped(path, data, size)
	if err != nil {
		unmap()
		return nil, err
	}
	f.closer, f.mapped = unmap, true
	return f, nil
}

// InMemory reports whether the whole file is in memory of the File's own
// (read whole by Open, or given to FromBytes): the byte slices it returns
// (StackBytes, MemoryRegion.Bytes) are then slices of it, which outlive
// Close. Otherwise they are slices of a memory map, gone at Close, or a
// fresh copy at each call.
func (f *File) InMemory() bool { return f.data != nil && !f.mapped }

// readWholeBytes: a file up to this size is read into memory rather than
// mapped. Unmapping costs more than reading a small file: in a batch of
// thousands of 40 KB dumps, munmap (and the TLB shootdowns it sends to the
// other threads' CPUs) took 13% of the CPU time (issue 29).
const readWholeBytes = 1 << 20

// openRead reads the whole of osf (size bytes, the name path) into memory
// and parses it; it closes osf.
func openRead(osf *os.File, path string, size int64) (*File, error) {
	defer osf.Close()
	data := make([]byte, size)
	if n, err := io.ReadFull(osf, data); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			// Truncated since Stat: as a truncated mapping, unreadable.
			err = &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%d of %d bytes: %w", n, size, io.ErrUnexpectedEOF)}
		}
		return nil, err
	}
	return newFile(byteReaderAt(data), data, size)
}

// newMapped parses the header and directory of the mapped file at path. A
// file truncated meanwhile faults: that is a *mapfault.Error naming path.
// Later reads of the mapping are guarded by the caller (stackwalk's
// Dump.Process, the command): see package mapfault.
func newMapped(path string, data []byte, size int64) (f *File, err error) {
	defer mapfault.Enable()()
	defer mapfault.Recover(&err, path)
	return newFile(byteReaderAt(data), data, size)
}

// FromBytes parses the header and stream directory of the minidump data,
// which the File reads in place: data must not change while it is used.
func FromBytes(data []byte) (*File, error) {
	return newFile(byteReaderAt(data), data, int64(len(data)))
}

// NewFile parses the header and stream directory of a minidump of size bytes read through r.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	return newFile(r, nil, size)
}

func newFile(r io.ReaderAt, data []byte, size int64) (*File, error) {
	f := &File{r: r, data: data, size: size}
	var hb [headerSize]byte
	if err := f.readAt(hb[:], 0, "header"); err != nil {
		return nil, err
	}
	h := Header{
		Signature:     le.Uint32(hb[0:]),
		Version:       le.Uint32(hb[4:]),
		NumStreams:    le.Uint32(hb[8:]),
		DirectoryRVA:  le.Uint32(hb[12:]),
		Checksum:      le.Uint32(hb[16:]),
		TimeDateStamp: le.Uint32(hb[20:]),
		Flags:         le.Uint64(hb[24:]),
	}
	if h.Signature == 0x4d444d50 { // "MDMP" read big-endian
		return nil, &FormatError{0, "header", "big-endian minidump: not supported"}
	}
	if h.Signature != Signature {
		return nil, &FormatError{0, "header", fmt.Sprintf("bad signature %#08x, not a minidump", h.Signature)}
	}
	if h.Version&0xffff != 0xa793 {
		return nil, &FormatError{4, "header", fmt.Sprintf("unsupported version %#x", h.Version)}
	}
	f.Header = h
	dirOff := int64(h.DirectoryRVA)
	n := int64(h.NumStreams)
	if n*dirEntrySize > size-dirOff || dirOff > size {
		return nil, &FormatError{dirOff, "directory", fmt.Sprintf("%d entries do not fit in the file (size %d)", n, size)}
	}
	buf := make([]byte, n*dirEntrySize)
	if err := f.readAt(buf, dirOff, "directory"); err != nil {
		return nil, err
	}
	f.dir = make([]StreamInfo, n)
	seen := map[StreamType]bool{}
	for i := range f.dir {
		e := buf[i*dirEntrySize:]
		t := StreamType(le.Uint32(e))
		f.dir[i] = StreamInfo{Type: t, Name: t.String(), Size: le.Uint32(e[4:]), Off: int64(le.Uint32(e[8:]))}
		// Breakpad rejects a dump with two of the streams it relies on; of
		// other types it uses the last one (see stream).
		if singleStream(t) {
			if seen[t] {
				return nil, &FormatError{dirOff + int64(i*dirEntrySize), "directory", fmt.Sprintf("multiple %s streams", t)}
			}
			seen[t] = true
		}
	}
	return f, nil
}

// Close releases the memory map or file handle. Byte slices obtained from
// the File (region and stack bytes, raw streams excepted) must not be used after it.
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	c := f.closer
	f.closer = nil
	f.data = nil
	return c()
}

// Size is the file size in bytes.
func (f *File) Size() int64 { return f.size }

// Streams lists the stream directory in file order, unknown types included.
func (f *File) Streams() []StreamInfo {
	return append([]StreamInfo(nil), f.dir...)
}

var le = binary.LittleEndian

type byteReaderAt []byte

func (b byteReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// readAt fills p from file offset off or returns a FormatError naming stream.
func (f *File) readAt(p []byte, off int64, stream string) error {
	if off < 0 || off > f.size || int64(len(p)) > f.size-off {
		return &FormatError{off, stream, fmt.Sprintf("%d bytes needed, file ends at %#x", len(p), f.size)}
	}
	if f.data != nil {
		copy(p, f.data[off:])
		return nil
	}
	if _, err := f.r.ReadAt(p, off); err != nil {
		return &FormatError{off, stream, fmt.Sprintf("read %d bytes: %v", len(p), err)}
	}
	return nil
}

// bytesAt returns n bytes at off: a slice of the mapping when mapped, else a fresh copy.
func (f *File) bytesAt(off, n int64, stream string) ([]byte, error) {
	if off < 0 || n < 0 || off > f.size || n > f.size-off {
		return nil, &FormatError{off, stream, fmt.Sprintf("%d bytes needed, file ends at %#x", n, f.size)}
	}
	if f.data != nil {
		return f.data[off : off+n : off+n], nil
	}
	p := make([]byte, n)
	if err := f.readAt(p, off, stream); err != nil {
		return nil, err
	}
	return p, nil
}

// singleStream reports whether Breakpad allows a stream of type t only once
// per dump.
func singleStream(t StreamType) bool {
	switch t {
	case StreamThreadList, StreamThreadNameList, StreamModuleList, StreamMemoryList,
		StreamException, StreamSystemInfo, StreamMiscInfo, StreamBreakpadInfo,
		StreamCrashpadInfo:
		return true
	}
	return false
}

// stream finds the directory entry of type t (the last one, as Breakpad) and returns its bytes.
func (f *File) stream(t StreamType) ([]byte, StreamInfo, error) {
	for i := len(f.dir) - 1; i >= 0; i-- {
		if s := f.dir[i]; s.Type == t {
			b, err := f.bytesAt(s.Off, int64(s.Size), s.Name)
			return b, s, err
		}
	}
	return nil, StreamInfo{Type: t, Name: t.String()}, noStreamError(t)
}

// maxStringBytes bounds MINIDUMP_STRING lengths; real names are far shorter.
const maxStringBytes = 1 << 20

// readString reads a MINIDUMP_STRING (uint32 byte length then UTF-16LE) at rva.
func (f *File) readString(rva uint32, stream string) (string, error) {
	var lb [4]byte
	if err := f.readAt(lb[:], int64(rva), stream); err != nil {
		return "", err
	}
	n := le.Uint32(lb[:])
	if n > maxStringBytes || int64(n) > f.size-int64(rva)-4 {
		return "", &FormatError{int64(rva), stream, fmt.Sprintf("string length %d exceeds file", n)}
	}
	b, err := f.bytesAt(int64(rva)+4, int64(n&^1), stream)
	if err != nil {
		return "", err
	}
	// Breakpad's conversion is strict: an unpaired surrogate makes the string unreadable.
	for i := 0; i+1 < len(b); i += 2 {
		switch u := le.Uint16(b[i:]); {
		case u >= 0xd800 && u < 0xdc00:
			if i+3 >= len(b) {
				return "", &FormatError{int64(rva), stream, "string ends in a lone UTF-16 surrogate"}
			}
			if v := le.Uint16(b[i+2:]); v < 0xdc00 || v >= 0xe000 {
				return "", &FormatError{int64(rva), stream, "unpaired UTF-16 surrogate"}
			}
			i += 2
		case u >= 0xdc00 && u < 0xe000:
			return "", &FormatError{int64(rva), stream, "unpaired UTF-16 surrogate"}
		}
	}
	return decodeUTF16(b), nil
}

func decodeUTF16(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = le.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

// cString returns b up to its first NUL.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
