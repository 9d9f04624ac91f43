package cab

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// FormatError is a malformed cabinet: what was wrong and at which offset.
type FormatError struct {
	Off int64
	Msg string
}

func (e *FormatError) Error() string { return fmt.Sprintf("cab: offset %#x: %s", e.Off, e.Msg) }

func errAt(off int64, format string, args ...any) error {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, args...)}
}

// ErrUnsupported is a cabinet this package cannot extract (LZX or Quantum
// compression, a cabinet set).
var ErrUnsupported = errors.New("cab: unsupported")

// ErrTooLarge is a file larger than the caller's limit.
var ErrTooLarge = errors.New("cab: file larger than the limit")

// File is a file of the cabinet.
type File struct {
	Name   string
	Size   uint32
	folder int
	offset uint32 // in its folder's uncompressed data
}

type folder struct {
	dataOff  uint32
	nData    uint16
	compress uint16
}

// Cabinet is an opened cabinet.
type Cabinet struct {
	r        io.ReaderAt
	size     int64
	Files    []File
	folders  []folder
	dataResv int
}

const (
	headerSize     = 36
	flagPrev       = 1
	flagNext       = 2
	flagReserve    = 4
	compressNone   = 0
	compressMSZIP  = 1
	compressLZX    = 3
	maxBlock       = 32768
	mszipHistory   = 32768
	maxStringBytes = 256
)

// IsCabinet reports whether b begins a cabinet.
func IsCabinet(b []byte) bool { return len(b) >= 4 && string(b[:4]) == "MSCF" }

// Open reads the cabinet's header, folders and file list.
func Open(r io.ReaderAt, size int64) (*Cabinet, error) {
	var h [headerSize + 4]byte
	if _, err := r.ReadAt(h[:headerSize], 0); err != nil {
		return nil, errAt(0, "no cabinet header: %v", err)
	}
	le := binary.LittleEndian
	if !IsCabinet(h[:]) {
		return nil, errAt(0, "not a cabinet (no MSCF signature)")
	}
	filesOff := le.Uint32(h[16:])
	if h[25] != 1 {
		return nil, errAt(25, "cabinet format version %d.%d, not 1.x", h[25], h[24])
	}
	nFolders, nFiles, flags := le.Uint16(h[26:]), le.Uint16(h[28:]), le.Uint16(h[30:])
	if flags&(flagPrev|flagNext) != 0 {
		return nil, fmt.Errorf("%w: a cabinet of a set spanning several files", ErrUnsupported)
	}
	c := &Cabinet{r: r, size: size}
	off := int64(headerSize)
	folderResv := 0
	if flags&flagReserve != 0 {
		if _, err := r.ReadAt(h[:4], off); err != nil {
			return nil, errAt(off, "reserve sizes: %v", err)
		}
		off += 4 + int64(le.Uint16(h[:]))
		folderResv, c.dataResv = int(h[2]), int(h[3])
	}
	if nFolders == 0 {
		return nil, errAt(26, "no folders")
	}
	for i := 0; i < int(nFolders); i++ {
		var fb [8]byte
		if _, err := r.ReadAt(fb[:], off); err != nil {
			return nil, errAt(off, "folder %d: %v", i, err)
		}
		c.folders = append(c.folders, folder{dataOff: le.Uint32(fb[:]), nData: le.Uint16(fb[4:]), compress: le.Uint16(fb[6:])})
		if int64(c.folders[i].dataOff) >= size {
			return nil, errAt(off, "folder %d's data at %#x, past the %d-byte file", i, c.folders[i].dataOff, size)
		}
		off += 8 + int64(folderResv)
	}
	return c, c.readFiles(int64(filesOff), int(nFiles))
}

func (c *Cabinet) readFiles(off int64, n int) error {
	le := binary.LittleEndian
	for i := 0; i < n; i++ {
		var fb [16 + maxStringBytes]byte
		k, _ := c.r.ReadAt(fb[:], off)
		if k < 17 {
			return errAt(off, "file entry %d truncated", i)
		}
		end := bytes.IndexByte(fb[16:k], 0)
		if end < 0 {
			return errAt(off+16, "file %d's name has no end within %d bytes", i, maxStringBytes)
		}
		f := File{Size: le.Uint32(fb[:]), offset: le.Uint32(fb[4:]), folder: int(le.Uint16(fb[8:])), Name: string(fb[16 : 16+end])}
		if f.folder >= len(c.folders) {
			return errAt(off+8, "file %q in folder %d of %d", f.Name, f.folder, len(c.folders))
		}
		c.Files = append(c.Files, f)
		off += 16 + int64(end) + 1
	}
	if len(c.Files) == 0 {
		return errAt(28, "no files")
	}
	return nil
}

// Find returns the file named name (ignoring case, as Windows does), or
// the only file of a one-file cabinet when name is "".
func (c *Cabinet) Find(name string) (*File, bool) {
	for i := range c.Files {
		if strings.EqualFold(c.Files[i].Name, name) || (name == "" && len(c.Files) == 1) {
			return &c.Files[i], true
		}
	}
	return nil, false
}

// Extract returns the content of f, refusing one over limit bytes before
// producing it.
func (c *Cabinet) Extract(f *File, limit int64) ([]byte, error) {
	fo := c.folders[f.folder]
	end := uint64(f.offset) + uint64(f.Size)
	// The folder is inflated up to the file's end: bound that, not only
	// the file's own size.
	if end > uint64(limit) {
		return nil, fmt.Errorf("%w: %s ends %d bytes into its folder, the limit is %d", ErrTooLarge, f.Name, end, limit)
	}
	if end > uint64(fo.nData)*maxBlock {
		return nil, errAt(int64(fo.dataOff), "file %q ends at %d, past its folder's %d blocks", f.Name, end, fo.nData)
	}
	data, err := c.folderData(fo, end)
	if err != nil {
		return nil, err
	}
	if uint64(len(data)) < end {
		return nil, errAt(int64(fo.dataOff), "folder holds %d bytes, file %q ends at %d", len(data), f.Name, end)
	}
	return data[f.offset:end], nil
}

// folderData decompresses a folder's blocks until want bytes are out.
func (c *Cabinet) folderData(fo folder, want uint64) ([]byte, error) {
	kind := fo.compress & 0xf
	switch kind {
	case compressNone, compressMSZIP:
	case compressLZX:
		return c.lzxFolderData(fo, want)
	case 2:
		return nil, fmt.Errorf("%w: Quantum compression", ErrUnsupported)
	default:
		return nil, errAt(int64(fo.dataOff), "compression type %d unknown", kind)
	}
	out := make([]byte, 0, min(want, 64<<20))
	off := int64(fo.dataOff)
	for i := 0; i < int(fo.nData) && uint64(len(out)) < want; i++ {
		in, unpacked, body, err := c.readBlock(i, off)
		if err != nil {
			return nil, err
		}
		if out, err = appendBlock(out, in, unpacked, kind, body); err != nil {
			return nil, err
		}
		off = body + int64(len(in))
	}
	return out, nil
}

// readBlock reads the CFDATA block at off, checking its checksum: its
// packed bytes, their unpacked size and the offset of the bytes.
func (c *Cabinet) readBlock(i int, off int64) ([]byte, int, int64, error) {
	le := binary.LittleEndian
	var hb [8]byte
	if _, err := c.r.ReadAt(hb[:], off); err != nil {
		return nil, 0, 0, errAt(off, "data block %d: %v", i, err)
	}
	packed, unpacked := int64(le.Uint16(hb[4:])), int(le.Uint16(hb[6:]))
	body := off + 8 + int64(c.dataResv)
	if unpacked > maxBlock || body+packed > c.size {
		return nil, 0, 0, errAt(off, "data block %d: %d bytes packed to %d, past the file or the 32 KiB block", i, packed, unpacked)
	}
	in := make([]byte, packed)
	if _, err := c.r.ReadAt(in, body); err != nil {
		return nil, 0, 0, errAt(body, "data block %d: %v", i, err)
	}
	if sum := le.Uint32(hb[:]); sum != 0 {
		resv := make([]byte, c.dataResv)
		c.r.ReadAt(resv, off+8)
		if got := blockChecksum(hb[4:8], resv, in); got != sum {
			return nil, 0, 0, errAt(off, "data block %d: checksum %#x, the block's is %#x", i, sum, got)
		}
	}
	return in, unpacked, body, nil
}

// lzxFolderData decompresses an LZX folder until want bytes are out. The
// folder is one LZX stream whose frames are its blocks: every block but
// the last unpacks to 32 KiB. The blocks are joined first, as a frame's
// bits may be read ahead into the next block.
func (c *Cabinet) lzxFolderData(fo folder, want uint64) ([]byte, error) {
	d, err := newLZX(int(fo.compress>>8) & 0x1f)
	if err != nil {
		return nil, errAt(int64(fo.dataOff), "%v", err)
	}
	var sizes []int
	var starts []int64
	off := int64(fo.dataOff)
	var total uint64
	for i := 0; i < int(fo.nData) && total < want; i++ {
		in, unpacked, body, err := c.readBlock(i, off)
		if err != nil {
			return nil, err
		}
		if unpacked != maxBlock && i+1 < int(fo.nData) {
			return nil, errAt(off, "LZX data block %d unpacks to %d bytes, not 32768, before its folder's last", i, unpacked)
		}
		d.br.in = append(d.br.in, in...)
		sizes, starts = append(sizes, unpacked), append(starts, body)
		total += uint64(unpacked)
		off = body + int64(len(in))
	}
	out := make([]byte, 0, min(total, 64<<20))
	for i, size := range sizes {
		if out, err = d.frameOut(out, size); err != nil {
			return nil, errAt(starts[i], "data block %d: %v", i, err)
		}
	}
	return out, nil
}

// appendBlock appends one block's unpacked bytes: stored, or an MSZIP
// block ("CK", then a deflate stream whose window is the bytes before).
func appendBlock(out, in []byte, unpacked int, kind uint16, off int64) ([]byte, error) {
	if kind == compressNone {
		if len(in) != unpacked {
			return nil, errAt(off, "stored block of %d bytes says %d", len(in), unpacked)
		}
		return append(out, in...), nil
	}
	if len(in) < 2 || in[0] != 'C' || in[1] != 'K' {
		return nil, errAt(off, "MSZIP block without its CK signature")
	}
	dict := out[max(0, len(out)-mszipHistory):]
	zr := flate.NewReaderDict(bytes.NewReader(in[2:]), dict)
	start := len(out)
	out = append(out, make([]byte, unpacked)...)
	n, err := io.ReadFull(zr, out[start:])
	if err != nil {
		return nil, errAt(off, "MSZIP block: %d of %d bytes: %v", n, unpacked, err)
	}
	// The block must end there: more output would be a lie of its header.
	var one [1]byte
	if k, _ := zr.Read(one[:]); k != 0 {
		return nil, errAt(off, "MSZIP block inflates past its %d bytes", unpacked)
	}
	return out, nil
}

// blockChecksum is a CFDATA block's checksum (MS-CAB): the XOR of the
// little-endian words of its data, then of its size fields and reserve.
func blockChecksum(sizes, resv, data []byte) uint32 {
	return checksum(append(append([]byte{}, sizes...), resv...), checksum(data, 0))
}

func checksum(b []byte, seed uint32) uint32 {
	sum := seed
	n := len(b) / 4 * 4
	for i := 0; i < n; i += 4 {
		sum ^= binary.LittleEndian.Uint32(b[i:])
	}
	var tail uint32
	for _, c := range b[n:] {
		tail = tail<<8 | uint32(c)
	}
	return sum ^ tail
}
