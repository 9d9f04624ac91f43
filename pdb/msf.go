package pdb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"
)

// msfMagic opens every MSF 7.0 file (the "big" MSF of PDB 7).
var msfMagic = []byte("Microsoft C/C++ MSF 7.00\r\n\x1aDS\x00\x00\x00")

// oldMagic opens the MSF 2.0 files of PDB 2.0 (VC++ 6 and older), which
// this package does not read.
var oldMagic = []byte("Microsoft C/C++ program database 2.00\r\n")

const (
	superblockSize = 56
	nilStreamSize  = 0xffffffff
	// MaxStreams bounds the stream directory; real PDBs have a few
	// thousand streams (one per module), the largest seen ~100k.
	MaxStreams = 1 << 20
)

// Fixed stream numbers.
const (
	StreamPDB = 1
	StreamTPI = 2
	StreamDBI = 3
	StreamIPI = 4
)

// File is an open PDB: its MSF layout; streams are read on demand.
type File struct {
	r         io.ReaderAt
	closer    io.Closer
	size      int64
	BlockSize uint32
	NumBlocks uint32
	// FreeBlockMap is the block of the active free block map (1 or 2).
	FreeBlockMap uint32
	sizes        []uint32   // stream sizes; nilStreamSize for a nil stream
	blocks       [][]uint32 // each stream's blocks

	info *Info
	dbi  *DBI
	ipi  *TypeStream
	tpi  *TypeStream
	strs *StringTable
	// modules are the module streams ResolveID has read, by stream.
	modules map[uint16]*ModuleInfo
}

// OpenFile opens the named PDB; Close closes it.
func OpenFile(name string) (*File, error) {
	f, _, err := regfile.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	pf, err := NewFile(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	pf.closer = f
	return pf, nil
}

// Close closes the file OpenFile opened.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// NewFile reads the superblock and the stream directory of the PDB of
// size bytes in r.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	var sb [superblockSize]byte
	if _, err := r.ReadAt(sb[:], 0); err != nil {
		if _, err2 := r.ReadAt(sb[:len(oldMagic)], 0); err2 == nil && bytes.Equal(sb[:len(oldMagic)], oldMagic) {
			return nil, errAt(FileStream, 0, "an MSF 2.0 (PDB 2.0) file; only MSF 7.0 is read")
		}
		return nil, errAt(FileStream, 0, "no MSF superblock: %v", err)
	}
	if bytes.Equal(sb[:len(oldMagic)], oldMagic) {
		return nil, errAt(FileStream, 0, "an MSF 2.0 (PDB 2.0) file; only MSF 7.0 is read")
	}
	if !bytes.Equal(sb[:32], msfMagic) {
		return nil, errAt(FileStream, 0, "not an MSF 7.0 file (bad magic)")
	}
	le := binary.LittleEndian
	f := &File{r: r, size: size,
		BlockSize:    le.Uint32(sb[32:]),
		FreeBlockMap: le.Uint32(sb[36:]),
		NumBlocks:    le.Uint32(sb[40:]),
	}
	dirBytes, blockMapAddr := le.Uint32(sb[44:]), le.Uint32(sb[52:])
	switch f.BlockSize {
	case 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536:
	default:
		return nil, errAt(FileStream, 32, "block size %d is not a power of two from 512 to 65536", f.BlockSize)
	}
	if f.FreeBlockMap != 1 && f.FreeBlockMap != 2 {
		return nil, errAt(FileStream, 36, "free block map at block %d, not 1 or 2", f.FreeBlockMap)
	}
	if uint64(f.NumBlocks)*uint64(f.BlockSize) > uint64(size) {
		return nil, errAt(FileStream, 40, "%d blocks of %d bytes but the file has %d bytes", f.NumBlocks, f.BlockSize, size)
	}
	if err := f.readDirectory(dirBytes, blockMapAddr); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) blocksOf(n uint32) uint64 {
	return (uint64(n) + uint64(f.BlockSize) - 1) / uint64(f.BlockSize)
}

// readBlocks reads n bytes spread over the given blocks.
func (f *File) readBlocks(blocks []uint32, n uint32) ([]byte, error) {
	out := make([]byte, n)
	for i, b := range blocks {
		start := uint32(i) * f.BlockSize
		end := min(start+f.BlockSize, n)
		if _, err := f.r.ReadAt(out[start:end], int64(b)*int64(f.BlockSize)); err != nil {
			return nil, errAt(FileStream, int64(b)*int64(f.BlockSize), "reading block %d: %v", b, err)
		}
	}
	return out, nil
}

func (f *File) checkBlock(b uint32, off int64) error {
	if b == 0 || b >= f.NumBlocks {
		return errAt(FileStream, off, "block %d outside 1..%d", b, f.NumBlocks-1)
	}
	return nil
}

func (f *File) readDirectory(dirBytes, blockMapAddr uint32) error {
	if dirBytes < 4 || f.blocksOf(dirBytes) > uint64(f.NumBlocks) {
		return errAt(FileStream, 44, "stream directory of %d bytes does not fit %d blocks", dirBytes, f.NumBlocks)
	}
	if err := f.checkBlock(blockMapAddr, 52); err != nil {
		return err
	}
	nDirBlocks := f.blocksOf(dirBytes)
	if nDirBlocks*4 > uint64(f.BlockSize) {
		return errAt(FileStream, 52, "stream directory of %d bytes needs more than one block of block numbers", dirBytes)
	}
	mapOff := int64(blockMapAddr) * int64(f.BlockSize)
	raw := make([]byte, nDirBlocks*4)
	if _, err := f.r.ReadAt(raw, mapOff); err != nil {
		return errAt(FileStream, mapOff, "reading the directory's block map: %v", err)
	}
	dirBlocks := make([]uint32, nDirBlocks)
	for i := range dirBlocks {
		dirBlocks[i] = binary.LittleEndian.Uint32(raw[4*i:])
		if err := f.checkBlock(dirBlocks[i], mapOff+int64(4*i)); err != nil {
			return err
		}
	}
	dir, err := f.readBlocks(dirBlocks, dirBytes)
	if err != nil {
		return err
	}
	return f.parseDirectory(dir)
}

// parseDirectory reads the stream sizes and block lists; its errors give
// offsets in the directory (Stream DirectoryStream).
func (f *File) parseDirectory(dir []byte) error {
	r := newReader(DirectoryStream, dir, 0)
	n := r.u32()
	if n > MaxStreams {
		return errAt(DirectoryStream, 0, "%d streams, more than %d", n, MaxStreams)
	}
	count := r.count(n, 4, "stream sizes")
	if r.err != nil {
		return r.err
	}
	f.sizes = make([]uint32, count)
	var total uint64
	for i := range f.sizes {
		f.sizes[i] = r.u32()
		if f.sizes[i] != nilStreamSize {
			total += f.blocksOf(f.sizes[i])
		}
	}
	// In a well-formed file every block belongs to one stream at most, so
	// the streams' blocks cannot outnumber the file's: this bounds every
	// stream read by the file's size.
	if total > uint64(f.NumBlocks) {
		return errAt(DirectoryStream, 4, "streams need %d blocks, the file has %d", total, f.NumBlocks)
	}
	f.blocks = make([][]uint32, count)
	for i, sz := range f.sizes {
		if sz == nilStreamSize {
			continue
		}
		nb := int(f.blocksOf(sz))
		bl := make([]uint32, nb)
		for j := range bl {
			off := r.off
			bl[j] = r.u32()
			if r.err != nil {
				return r.err
			}
			if bl[j] == 0 || bl[j] >= f.NumBlocks {
				return errAt(DirectoryStream, int64(off), "stream %d: block %d outside 1..%d", i, bl[j], f.NumBlocks-1)
			}
		}
		f.blocks[i] = bl
	}
	return nil
}

// StreamSize is the size of stream i; ok is false for a nil or absent
// stream.
func (f *File) StreamSize(i int) (size uint32, ok bool) {
	if i < 0 || i >= len(f.sizes) || f.sizes[i] == nilStreamSize {
		return 0, false
	}
	return f.sizes[i], true
}

// Stream reads stream i whole. A nil stream is an error.
func (f *File) Stream(i int) ([]byte, error) {
	size, ok := f.StreamSize(i)
	if !ok {
		return nil, errAt(FileStream, 0, "stream %d does not exist (%d streams)", i, len(f.sizes))
	}
	return f.readBlocks(f.blocks[i], size)
}
