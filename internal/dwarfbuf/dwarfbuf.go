package dwarfbuf

import (
	"encoding/binary"
	"errors"
)

// The causes of a failed read.
var (
	ErrShort        = errors.New("unexpected end of data")
	ErrLEBOverflow  = errors.New("LEB128 number overflows 64 bits")
	ErrUnterminated = errors.New("unterminated string")
	ErrSize         = errors.New("unsupported integer size")
)

// Buf is a cursor over Data, the bytes of a section from section offset
// Base on. The first failed read sets Err and ErrOff and moves the cursor
// to the end; every read after it returns zero, so a parser may check Err
// once after a run of reads.
type Buf struct {
	Data  []byte
	Pos   int // index in Data of the next read
	Base  uint64
	Order binary.ByteOrder
	// Err is the first failure: one of the errors above, or what Fail
	// was given; ErrOff is the section offset it happened at.
	Err    error
	ErrOff uint64
}

// Off is the section offset of the next read.
func (b *Buf) Off() uint64 { return b.Base + uint64(b.Pos) }

// Left is the number of bytes after the cursor.
func (b *Buf) Left() int { return len(b.Data) - b.Pos }

// Fail records err as the failure, unless one is recorded already, and
// moves the cursor to the end.
func (b *Buf) Fail(err error) {
	if b.Err == nil {
		b.Err, b.ErrOff = err, b.Off()
	}
	b.Pos = len(b.Data)
}

// Seek moves the cursor to section offset off, which must lie within
// Data or just past its end.
func (b *Buf) Seek(off uint64) {
	if b.Err != nil {
		return
	}
	if off < b.Base || off-b.Base > uint64(len(b.Data)) {
		b.Fail(ErrShort)
		return
	}
	b.Pos = int(off - b.Base)
}

// Bytes returns the next n bytes, a subslice of Data.
func (b *Buf) Bytes(n uint64) []byte {
	if b.Err != nil || n > uint64(b.Left()) {
		b.Fail(ErrShort)
		return nil
	}
	s := b.Data[b.Pos : b.Pos+int(n)]
	b.Pos += int(n)
	return s
}

func (b *Buf) U8() uint8 {
	if s := b.Bytes(1); s != nil {
		return s[0]
	}
	return 0
}

func (b *Buf) U16() uint16 {
	if s := b.Bytes(2); s != nil {
		return b.Order.Uint16(s)
	}
	return 0
}

func (b *Buf) U32() uint32 {
	if s := b.Bytes(4); s != nil {
		return b.Order.Uint32(s)
	}
	return 0
}

func (b *Buf) U64() uint64 {
	if s := b.Bytes(8); s != nil {
		return b.Order.Uint64(s)
	}
	return 0
}

// Uint reads an unsigned integer of size 1, 2, 4 or 8 bytes.
func (b *Buf) Uint(size int) uint64 {
	switch size {
	case 1:
		return uint64(b.U8())
	case 2:
		return uint64(b.U16())
	case 4:
		return uint64(b.U32())
	case 8:
		return b.U64()
	}
	b.Fail(ErrSize)
	return 0
}

// ULEB reads an unsigned LEB128 number. Bits beyond 64 are an error, not
// dropped, so that a hostile encoding cannot alias a small value.
func (b *Buf) ULEB() uint64 {
	var v uint64
	var shift uint
	for {
		c := b.U8()
		if b.Err != nil {
			return 0
		}
		switch {
		case shift < 63:
			v |= uint64(c&0x7f) << shift
		case shift == 63 && c&0x7e == 0:
			v |= uint64(c&1) << 63
		case c&0x7f != 0:
			b.Fail(ErrLEBOverflow)
			return 0
		}
		shift += 7
		if c&0x80 == 0 {
			return v
		}
	}
}

// SLEB reads a signed LEB128 number; bits beyond 64 are dropped, as the
// sign extension of a shorter number would leave them.
func (b *Buf) SLEB() int64 {
	var v int64
	var shift uint
	for {
		c := b.U8()
		if b.Err != nil {
			return 0
		}
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

// CString reads a NUL-terminated string.
func (b *Buf) CString() string {
	if b.Err != nil {
		return ""
	}
	for i := b.Pos; i < len(b.Data); i++ {
		if b.Data[i] == 0 {
			s := string(b.Data[b.Pos:i])
			b.Pos = i + 1
			return s
		}
	}
	b.Fail(ErrUnterminated)
	return ""
}
