package xz

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
	"sync"

	"github.com/ulikunitz/xz/lzma"
)

// MaxDict bounds the LZMA2 dictionary a block may ask for (xz -9 uses
// 64 MB).
const MaxDict = 256 << 20

var headerMagic = [6]byte{0xfd, '7', 'z', 'X', 'Z', 0}

// crc64Table is built on the first CRC-64 check.
var crc64Table = sync.OnceValue(func() *crc64.Table { return crc64.MakeTable(crc64.ECMA) })

// check types (the stream flags' low nibble) and their sizes.
const (
	checkNone   = 0x00
	checkCRC32  = 0x01
	checkCRC64  = 0x04
	checkSHA256 = 0x0a
)

// record is an index record: a block's unpadded and uncompressed sizes.
type record struct{ unpadded, uncompressed int64 }

// Reader decompresses an .xz file.
type Reader struct {
	in       *countingReader
	streams  int
	inStream bool
	check    byte
	records  []record
	block    *block // nil between blocks
	err      error
}

// block is the state of the block being read.
type block struct {
	data               io.Reader // the LZMA2 decoder
	start              int64     // offset of the block header
	headerLen          int64
	compressed         int64 // from the header, -1 when absent
	uncompressed       int64 // from the header, -1 when absent
	dataStart, written int64
	hash               hash.Hash
}

// NewReader returns a reader of the decompressed contents of r, which it
// reads through a buffer of its own. The stream header is read at once.
func NewReader(r io.Reader) (*Reader, error) {
	x := &Reader{in: &countingReader{r: bufio.NewReader(r)}}
	if err := x.readStreamHeader(); err != nil {
		return nil, err
	}
	return x, nil
}

// Read reads decompressed bytes.
func (x *Reader) Read(p []byte) (int, error) {
	for x.err == nil {
		if x.block == nil {
			if x.err = x.nextBlock(); x.err != nil {
				break
			}
		}
		n, err := x.block.data.Read(p)
		x.block.hash.Write(p[:n])
		x.block.written += int64(n)
		switch {
		case err == io.EOF:
			x.err = x.finishBlock()
		case err != nil:
			x.err = x.errorf("block at offset %d: %w", x.block.start, err)
		}
		if n > 0 {
			return n, nil
		}
	}
	return 0, x.err
}

func (x *Reader) errorf(format string, args ...any) error {
	return fmt.Errorf("xz: "+format, args...)
}

// readStreamHeader reads a stream's 12-byte header.
func (x *Reader) readStreamHeader() error {
	var h [12]byte
	start := x.in.n
	if _, err := io.ReadFull(x.in, h[:]); err != nil {
		return x.errorf("stream header at offset %d: %v", start, err)
	}
	return x.streamHeader(h[:], start)
}

func (x *Reader) streamHeader(h []byte, start int64) error {
	if !bytes.Equal(h[:6], headerMagic[:]) {
		return x.errorf("no stream header magic at offset %d", start)
	}
	if crc32.ChecksumIEEE(h[6:8]) != binary.LittleEndian.Uint32(h[8:]) {
		return x.errorf("stream header CRC32 mismatch at offset %d", start)
	}
	if h[6] != 0 || h[7]&0xf0 != 0 {
		return x.errorf("reserved stream flags set at offset %d", start+6)
	}
	switch h[7] {
	case checkNone, checkCRC32, checkCRC64, checkSHA256:
	default:
		return x.errorf("unsupported check type %#x at offset %d", h[7], start+7)
	}
	x.check, x.inStream, x.records = h[7], true, x.records[:0]
	x.streams++
	return nil
}

// nextBlock starts the next block, reading the index, footer, stream
// padding and next stream header on the way. io.EOF: the file ended after
// a stream.
func (x *Reader) nextBlock() error {
	for {
		if !x.inStream {
			if err := x.nextStream(); err != nil {
				return err
			}
		}
		start := x.in.n
		size, err := x.in.ReadByte()
		if err != nil {
			return x.errorf("block header at offset %d: %v", start, unexpected(err))
		}
		if size == 0 {
			if err := x.readIndexAndFooter(start); err != nil {
				return err
			}
			x.inStream = false
			continue
		}
		return x.startBlock(start, (int64(size)+1)*4)
	}
}

// nextStream skips stream padding and reads the next stream header;
// io.EOF when the file ends instead.
func (x *Reader) nextStream() error {
	for {
		var h [12]byte
		start := x.in.n
		n, err := io.ReadFull(x.in, h[:4])
		if n == 0 && err == io.EOF {
			return io.EOF
		}
		if err != nil {
			return x.errorf("stream padding at offset %d: %v", start, unexpected(err))
		}
		if h == [12]byte{} {
			continue // 4 bytes of stream padding
		}
		if !bytes.Equal(h[:4], headerMagic[:4]) {
			return x.errorf("no stream header magic at offset %d", start)
		}
		if _, err := io.ReadFull(x.in, h[4:]); err != nil {
			return x.errorf("stream header at offset %d: %v", start, unexpected(err))
		}
		return x.streamHeader(h[:], start)
	}
}

// startBlock reads a block header of hlen bytes whose size byte was read.
func (x *Reader) startBlock(start, hlen int64) error {
	h := make([]byte, hlen)
	h[0] = byte(hlen/4 - 1)
	if _, err := io.ReadFull(x.in, h[1:]); err != nil {
		return x.errorf("block header at offset %d: %v", start, unexpected(err))
	}
	if crc32.ChecksumIEEE(h[:hlen-4]) != binary.LittleEndian.Uint32(h[hlen-4:]) {
		return x.errorf("block header CRC32 mismatch at offset %d", start)
	}
	b := &block{start: start, headerLen: hlen, compressed: -1, uncompressed: -1}
	dict, err := b.parseHeader(h[1 : hlen-4])
	if err != nil {
		return x.errorf("block header at offset %d: %v", start, err)
	}
	b.hash = x.newHash()
	b.dataStart = x.in.n
	d, err := lzma.Reader2Config{DictCap: dict}.NewReader2(x.in)
	if err != nil {
		return x.errorf("block at offset %d: %v", start, err)
	}
	b.data, x.block = d, b
	return nil
}

// parseHeader reads a block header's flags, sizes and filter (after the
// size byte, before the CRC32) and returns the dictionary to allocate.
func (b *block) parseHeader(h []byte) (int, error) {
	r := bytes.NewReader(h)
	flags, _ := r.ReadByte()
	if flags&0x3c != 0 {
		return 0, errors.New("reserved block flags set")
	}
	if flags&0x03 != 0 {
		return 0, fmt.Errorf("%d filters; only LZMA2 alone is supported", flags&0x03+1)
	}
	var err error
	if flags&0x40 != 0 {
		if b.compressed, err = uvarint(r); err != nil || b.compressed == 0 {
			return 0, fmt.Errorf("bad compressed size (%v)", err)
		}
	}
	if flags&0x80 != 0 {
		if b.uncompressed, err = uvarint(r); err != nil {
			return 0, fmt.Errorf("bad uncompressed size: %v", err)
		}
	}
	id, err1 := uvarint(r)
	propSize, err2 := uvarint(r)
	prop, err3 := r.ReadByte()
	if err1 != nil || err2 != nil || err3 != nil || id != 0x21 || propSize != 1 {
		return 0, fmt.Errorf("filter %#x with %d property bytes; only LZMA2 is supported", id, propSize)
	}
	dict, err := lzma.DecodeDictCap(prop)
	if err != nil {
		return 0, fmt.Errorf("LZMA2 dictionary size %#x: %v", prop, err)
	}
	for r.Len() > 0 {
		if c, _ := r.ReadByte(); c != 0 {
			return 0, errors.New("non-zero block header padding")
		}
	}
	if dict > MaxDict {
		return 0, fmt.Errorf("LZMA2 dictionary of %d bytes, over the bound of %d", dict, MaxDict)
	}
	if b.uncompressed >= 0 && b.uncompressed < int64(dict) {
		dict = b.uncompressed // a block refers to nothing before its start
	}
	return max(int(dict), lzma.MinDictCap), nil
}

func (x *Reader) newHash() hash.Hash {
	switch x.check {
	case checkCRC32:
		return crc32.NewIEEE()
	case checkCRC64:
		return crc64.New(crc64Table())
	case checkSHA256:
		return sha256.New()
	}
	return noHash{}
}

// finishBlock checks the sizes, padding and check of the block just read.
func (x *Reader) finishBlock() error {
	b := x.block
	x.block = nil
	compressed := x.in.n - b.dataStart
	if b.compressed >= 0 && compressed != b.compressed || b.uncompressed >= 0 && b.written != b.uncompressed {
		return x.errorf("block at offset %d: sizes %d and %d differ from its header's", b.start, compressed, b.written)
	}
	var pad [3]byte
	padding := pad[:(4-compressed%4)%4]
	if _, err := io.ReadFull(x.in, padding); err != nil || !bytes.Equal(padding, make([]byte, len(padding))) {
		return x.errorf("block padding at offset %d", b.dataStart+compressed)
	}
	sum := b.hash.Sum(nil)
	if x.check == checkCRC32 || x.check == checkCRC64 { // stored little-endian, Sum is big-endian
		for i, j := 0, len(sum)-1; i < j; i, j = i+1, j-1 {
			sum[i], sum[j] = sum[j], sum[i]
		}
	}
	at := x.in.n
	stored := make([]byte, len(sum))
	if _, err := io.ReadFull(x.in, stored); err != nil || !bytes.Equal(stored, sum) {
		return x.errorf("check of the block at offset %d mismatches at offset %d", b.start, at)
	}
	x.records = append(x.records, record{unpadded: b.headerLen + compressed + int64(len(sum)), uncompressed: b.written})
	return nil
}

// readIndexAndFooter reads a stream's index, whose indicator byte at
// start was read, and its footer, and checks both against the blocks read.
func (x *Reader) readIndexAndFooter(start int64) error {
	crc := crc32.NewIEEE()
	crc.Write([]byte{0})
	r := &hashingReader{r: x.in, h: crc}
	n, err := uvarint(r)
	if err != nil || n != int64(len(x.records)) {
		return x.errorf("index at offset %d: %d records for %d blocks (%v)", start, n, len(x.records), err)
	}
	for _, rec := range x.records {
		unpadded, err1 := uvarint(r)
		uncompressed, err2 := uvarint(r)
		if err1 != nil || err2 != nil || unpadded != rec.unpadded || uncompressed != rec.uncompressed {
			return x.errorf("index at offset %d does not match the blocks", start)
		}
	}
	for (x.in.n-start)%4 != 0 {
		if c, err := r.ReadByte(); err != nil || c != 0 {
			return x.errorf("index padding at offset %d", x.in.n)
		}
	}
	size := x.in.n - start + 4
	var tail [16]byte // the index's CRC32, then the footer
	if _, err := io.ReadFull(x.in, tail[:]); err != nil {
		return x.errorf("index CRC32 and stream footer at offset %d: %v", size+start-4, unexpected(err))
	}
	if binary.LittleEndian.Uint32(tail[:4]) != crc.Sum32() {
		return x.errorf("index CRC32 mismatch at offset %d", start+size-4)
	}
	f := tail[4:]
	switch {
	case crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f[:4]):
		return x.errorf("stream footer CRC32 mismatch at offset %d", start+size)
	case (int64(binary.LittleEndian.Uint32(f[4:8]))+1)*4 != size:
		return x.errorf("stream footer's index size differs from the index's at offset %d", start+size)
	case f[8] != 0 || f[9] != x.check || f[10] != 'Y' || f[11] != 'Z':
		return x.errorf("bad stream footer at offset %d", start+size)
	}
	return nil
}

// uvarint reads the format's multibyte integer: at most 9 bytes, no
// superfluous zero byte.
func uvarint(r io.ByteReader) (int64, error) {
	var v uint64
	for i := range 9 {
		c, err := r.ReadByte()
		if err != nil {
			return 0, unexpected(err)
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if i > 0 && c == 0 {
				return 0, errors.New("integer with a superfluous zero byte")
			}
			return int64(v), nil
		}
	}
	return 0, errors.New("integer over 63 bits")
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// countingReader counts the bytes read through it: every offset in
// errors, and the size of each block's compressed data.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// hashingReader hashes the bytes read through it.
type hashingReader struct {
	r io.ByteReader
	h hash.Hash32
}

func (h *hashingReader) ReadByte() (byte, error) {
	b, err := h.r.ReadByte()
	if err == nil {
		h.h.Write([]byte{b})
	}
	return b, err
}

// noHash is the check of a stream without one.
type noHash struct{}

func (noHash) Write(p []byte) (int, error) { return len(p), nil }
func (noHash) Sum(b []byte) []byte         { return b }
func (noHash) Reset()                      {}
func (noHash) Size() int                   { return 0 }
func (noHash) BlockSize() int              { return 1 }
