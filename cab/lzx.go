package cab

import (
	"encoding/binary"
	"fmt"
)

// LZX as cabinets use it (MS-PATCH's LZX DELTA less its delta parts, and
// libmspack's lzxd.c): a window of 2^15..2^21 bytes, blocks of verbatim,
// aligned-offset or uncompressed data, a bitstream of 16-bit little-endian
// words read from the top bit down, realigned to 16 bits after each
// 32 KiB output frame, and the optional E8 (x86 CALL) translation of each
// frame's output. A folder is one LZX stream; each CFDATA block holds one
// frame.

const (
	lzxFrame       = 32768
	lzxLiterals    = 256
	lzxMinMatch    = 2
	lzxPrimaryLens = 7
	lzxLengthSyms  = 249
	lzxPretreeSyms = 20
	lzxAlignedSyms = 8
	lzxMaxSlots    = 50
	lzxMaxCodeLen  = 16
	lzxE8Frames    = 32768 // E8 translation stops after 1 GiB

	lzxVerbatim     = 1
	lzxAligned      = 2
	lzxUncompressed = 3
)

// lzxSlots is the number of position slots of each window size 2^15..2^21.
var lzxSlots = [...]int{30, 32, 34, 36, 38, 42, 50}

// errLZX is a malformed LZX stream; the folder reader adds the offset.
type errLZX string

func (e errLZX) Error() string { return string(e) }

func lzxErrorf(format string, args ...any) error { return errLZX(fmt.Sprintf(format, args...)) }

// lzxExtraBits is the number of verbatim offset bits of a position slot.
func lzxExtraBits(slot int) uint {
	if slot < 4 {
		return 0
	}
	return uint(min((slot-2)/2, 17))
}

// lzxDecoder decodes one folder's LZX stream frame by frame.
type lzxDecoder struct {
	br      bitReader
	window  []byte
	pos     uint32 // bytes decoded since the folder began
	r       [3]uint32
	slots   int
	base    [lzxMaxSlots + 1]uint32
	mainLen [lzxLiterals + 8*lzxMaxSlots]uint8
	lenLen  [lzxLengthSyms]uint8
	main    huffman
	length  huffman
	aligned huffman

	blockType      int
	blockLength    uint32
	blockRemaining uint32
	headerRead     bool
	e8Size         int32
	frame          int
}

func newLZX(windowBits int) (*lzxDecoder, error) {
	if windowBits < 15 || windowBits > 21 {
		return nil, lzxErrorf("LZX window of 2^%d bytes, not 2^15..2^21", windowBits)
	}
	d := &lzxDecoder{window: make([]byte, 1<<windowBits), r: [3]uint32{1, 1, 1}, slots: lzxSlots[windowBits-15]}
	for s := 0; s < lzxMaxSlots; s++ {
		d.base[s+1] = d.base[s] + 1<<lzxExtraBits(s)
	}
	return d, nil
}

// frameOut decodes the next frame, of size bytes, from d.br and appends
// it to out with the E8 translation undone.
func (d *lzxDecoder) frameOut(out []byte, size int) ([]byte, error) {
	if !d.headerRead {
		d.headerRead = true
		if d.br.bits(1) == 1 {
			hi := d.br.bits(16)
			d.e8Size = int32(hi<<16 | d.br.bits(16))
		}
	}
	mask := uint32(len(d.window) - 1)
	start := d.pos
	end := d.pos + uint32(size)
	for d.pos < end {
		if d.blockRemaining == 0 {
			if err := d.readBlockHeader(); err != nil {
				return nil, err
			}
		}
		run := min(d.blockRemaining, end-d.pos)
		var err error
		if d.blockType == lzxUncompressed {
			err = d.copyStored(run, mask)
		} else {
			err = d.decodeRun(d.pos+run, mask)
		}
		if err != nil {
			return nil, err
		}
		d.blockRemaining -= run
	}
	if d.blockType != lzxUncompressed {
		d.br.align()
	}
	if d.br.overrun() {
		return nil, lzxErrorf("LZX frame %d: the compressed data ends inside it", d.frame)
	}
	n := len(out)
	at := start & mask
	out = append(out, d.window[at:at+uint32(size)]...)
	if d.e8Size != 0 && d.frame < lzxE8Frames && size > 10 {
		undoE8(out[n:], int32(start), d.e8Size)
	}
	d.frame++
	return out, nil
}

// undoE8 turns the absolute targets the compressor wrote into E8 (CALL)
// instructions back into relative ones.
func undoE8(b []byte, at, fileSize int32) {
	for i := 0; i < len(b)-10; {
		if b[i] != 0xe8 {
			i++
			continue
		}
		cur := at + int32(i)
		abs := int32(binary.LittleEndian.Uint32(b[i+1:]))
		if abs >= -cur && abs < fileSize {
			rel := abs - cur
			if abs < 0 {
				rel = abs + fileSize
			}
			binary.LittleEndian.PutUint32(b[i+1:], uint32(rel))
		}
		i += 5
	}
}

func (d *lzxDecoder) readBlockHeader() error {
	if d.br.overrun() {
		return lzxErrorf("LZX frame %d: the compressed data ends before a block header", d.frame)
	}
	if d.blockType == lzxUncompressed && d.blockLength&1 == 1 {
		d.br.skipByte()
	}
	d.blockType = int(d.br.bits(3))
	hi := d.br.bits(16)
	d.blockLength = hi<<8 | d.br.bits(8)
	d.blockRemaining = d.blockLength
	switch d.blockType {
	case lzxAligned:
		var lens [lzxAlignedSyms]uint8
		for i := range lens {
			lens[i] = uint8(d.br.bits(3))
		}
		if err := d.aligned.build(lens[:], false); err != nil {
			return lzxErrorf("LZX frame %d: aligned-offset tree: %v", d.frame, err)
		}
		fallthrough
	case lzxVerbatim:
		return d.readTrees()
	case lzxUncompressed:
		d.br.byteAlign()
		rs := d.br.bytes(12)
		if rs == nil {
			return lzxErrorf("LZX frame %d: uncompressed block header past the end of the data", d.frame)
		}
		for i := range d.r {
			d.r[i] = binary.LittleEndian.Uint32(rs[4*i:])
		}
		return nil
	}
	return lzxErrorf("LZX frame %d: block type %d", d.frame, d.blockType)
}

// readTrees reads the main and length trees of a verbatim or aligned
// block, as deltas of the previous block's code lengths.
func (d *lzxDecoder) readTrees() error {
	nMain := lzxLiterals + 8*d.slots
	if err := d.readLengths(d.mainLen[:lzxLiterals]); err != nil {
		return err
	}
	if err := d.readLengths(d.mainLen[lzxLiterals:nMain]); err != nil {
		return err
	}
	if err := d.main.build(d.mainLen[:nMain], false); err != nil {
		return lzxErrorf("LZX frame %d: main tree: %v", d.frame, err)
	}
	if err := d.readLengths(d.lenLen[:]); err != nil {
		return err
	}
	if err := d.length.build(d.lenLen[:], true); err != nil {
		return lzxErrorf("LZX frame %d: length tree: %v", d.frame, err)
	}
	return nil
}

// readLengths updates lens from a pretree-coded list of deltas.
func (d *lzxDecoder) readLengths(lens []uint8) error {
	var pre huffman
	var preLens [lzxPretreeSyms]uint8
	for i := range preLens {
		preLens[i] = uint8(d.br.bits(4))
	}
	if err := pre.build(preLens[:], false); err != nil {
		return lzxErrorf("LZX frame %d: pretree: %v", d.frame, err)
	}
	for x := 0; x < len(lens); {
		z := pre.decode(&d.br)
		run, value := 1, uint8(0)
		switch z {
		case 17:
			run = 4 + int(d.br.bits(4))
		case 18:
			run = 20 + int(d.br.bits(5))
		case 19:
			run = 4 + int(d.br.bits(1))
			z = pre.decode(&d.br)
			if z > lzxMaxCodeLen {
				return lzxErrorf("LZX frame %d: pretree symbol %d after a repeat", d.frame, z)
			}
			value = uint8((int(lens[x]) + 17 - z) % 17)
		default:
			value = uint8((int(lens[x]) + 17 - z) % 17)
		}
		// A run past the end is cut there, as libmspack does.
		for ; run > 0 && x < len(lens); run-- {
			lens[x] = value
			x++
		}
	}
	return nil
}

// decodeRun decodes a verbatim or aligned block's symbols up to stop, the
// end of the block or the frame, which no match may cross.
func (d *lzxDecoder) decodeRun(stop, mask uint32) error {
	for d.pos < stop {
		sym := d.main.decode(&d.br)
		if sym < lzxLiterals {
			d.window[d.pos&mask] = byte(sym)
			d.pos++
			continue
		}
		sym -= lzxLiterals
		length := uint32(sym & lzxPrimaryLens)
		if length == lzxPrimaryLens {
			if d.length.empty() {
				return lzxErrorf("LZX frame %d: a match needs the empty length tree", d.frame)
			}
			length += uint32(d.length.decode(&d.br))
		}
		length += lzxMinMatch
		offset := d.matchOffset(sym >> 3)
		if d.pos+length > stop {
			return lzxErrorf("LZX frame %d: a %d-byte match crosses the end of its block or frame", d.frame, length)
		}
		if offset == 0 || offset > d.pos || offset > uint32(len(d.window)) {
			return lzxErrorf("LZX frame %d: match offset %d at byte %d of the stream", d.frame, offset, d.pos)
		}
		d.copyMatch(offset, length, mask)
	}
	return nil
}

// copyMatch copies a match within the window: at once where neither end
// wraps and the source does not overlap the destination.
func (d *lzxDecoder) copyMatch(offset, length, mask uint32) {
	w := d.window
	dst, src := d.pos&mask, (d.pos-offset)&mask
	size := uint32(len(w))
	switch {
	case dst+length > size || src+length > size:
		for i := uint32(0); i < length; i++ {
			w[(dst+i)&mask] = w[(src+i)&mask]
		}
	case offset >= length:
		copy(w[dst:dst+length], w[src:src+length])
	default:
		for i := uint32(0); i < length; i++ {
			w[dst+i] = w[src+i]
		}
	}
	d.pos += length
}

// matchOffset reads a match's offset from its position slot, keeping the
// three most recent offsets (R0..R2).
func (d *lzxDecoder) matchOffset(slot int) uint32 {
	switch slot {
	case 0:
		return d.r[0]
	case 1, 2:
		d.r[0], d.r[slot] = d.r[slot], d.r[0]
		return d.r[0]
	}
	extra := lzxExtraBits(slot)
	offset := d.base[slot] - 2
	switch {
	case d.blockType == lzxAligned && extra >= 3:
		offset += d.br.bits(extra-3)<<3 + uint32(d.aligned.decode(&d.br))
	case extra > 0:
		offset += d.br.bits(extra)
	}
	d.r[2], d.r[1], d.r[0] = d.r[1], d.r[0], offset
	return offset
}

// copyStored copies n bytes of an uncompressed block into the window.
func (d *lzxDecoder) copyStored(n, mask uint32) error {
	b := d.br.bytes(int(n))
	if b == nil {
		return lzxErrorf("LZX frame %d: uncompressed block past the end of the data", d.frame)
	}
	for _, c := range b {
		d.window[d.pos&mask] = c
		d.pos++
	}
	return nil
}

// bitReader reads LZX's bitstream: 16-bit little-endian words, each from
// its top bit down. Past the end it reads zeros and overrun says so.
type bitReader struct {
	in  []byte
	pos int    // next byte to load
	buf uint64 // n valid bits in its low bits
	n   uint
}

func (b *bitReader) refill() {
	for b.n <= 48 {
		var w uint64
		if b.pos+1 < len(b.in) {
			w = uint64(b.in[b.pos]) | uint64(b.in[b.pos+1])<<8
		}
		b.buf = b.buf<<16 | w
		b.n += 16
		b.pos += 2
	}
}

// peek returns the next k (<= 32) bits without consuming them.
func (b *bitReader) peek(k uint) uint32 {
	if b.n < k {
		b.refill()
	}
	return uint32(b.buf>>(b.n-k)) & (1<<k - 1)
}

func (b *bitReader) bits(k uint) uint32 {
	if k == 0 {
		return 0
	}
	v := b.peek(k)
	b.n -= k
	return v
}

// consumed is the number of bits read so far.
func (b *bitReader) consumed() int { return b.pos*8 - int(b.n) }

func (b *bitReader) overrun() bool { return b.consumed() > len(b.in)*8 }

// align skips to the next 16-bit word, as after each frame.
func (b *bitReader) align() { b.n -= b.n & 15 }

// byteAlign skips 1..16 bits to the next word, as before an uncompressed
// block's data, and switches to reading bytes.
func (b *bitReader) byteAlign() {
	if b.n&15 != 0 {
		b.n -= b.n & 15
	} else if b.n >= 16 {
		b.n -= 16
	} else {
		b.pos += 2
	}
	b.pos -= int(b.n / 8)
	b.n, b.buf = 0, 0
}

// bytes returns the next n bytes of a byte-aligned stream, nil past its end.
func (b *bitReader) bytes(n int) []byte {
	if b.n != 0 || b.pos < 0 || n > len(b.in)-b.pos {
		b.pos = len(b.in) + 2 // makes overrun report the truncation
		return nil
	}
	v := b.in[b.pos : b.pos+n]
	b.pos += n
	return v
}

func (b *bitReader) skipByte() {
	b.pos -= int(b.n / 8)
	b.n, b.buf = 0, 0
	b.pos++
}
