package elfcfi

import (
	"encoding/binary"
	"errors"
)

// errShort is the cause of every read past the end of a buffer; callers turn
// it into a FormatError with the offset.
var errShort = errors.New("unexpected end of data")

// buf is a bounded cursor over a byte slice. base is the section offset of
// data[0], so off() reports section offsets.
type buf struct {
	data  []byte
	pos   int
	base  uint64
	order binary.ByteOrder
	err   error
}

func (b *buf) off() uint64 { return b.base + uint64(b.pos) }

func (b *buf) left() int { return len(b.data) - b.pos }

func (b *buf) fail() {
	if b.err == nil {
		b.err = errShort
	}
	b.pos = len(b.data)
}

func (b *buf) bytes(n uint64) []byte {
	if b.err != nil || n > uint64(b.left()) {
		b.fail()
		return nil
	}
	s := b.data[b.pos : b.pos+int(n)]
	b.pos += int(n)
	return s
}

func (b *buf) u8() uint8 {
	s := b.bytes(1)
	if s == nil {
		return 0
	}
	return s[0]
}

func (b *buf) u16() uint16 {
	s := b.bytes(2)
	if s == nil {
		return 0
	}
	return b.order.Uint16(s)
}

func (b *buf) u32() uint32 {
	s := b.bytes(4)
	if s == nil {
		return 0
	}
	return b.order.Uint32(s)
}

func (b *buf) u64() uint64 {
	s := b.bytes(8)
	if s == nil {
		return 0
	}
	return b.order.Uint64(s)
}

// uint reads an unsigned integer of size 1, 2, 4 or 8 bytes.
func (b *buf) uint(size int) uint64 {
	switch size {
	case 1:
		return uint64(b.u8())
	case 2:
		return uint64(b.u16())
	case 4:
		return uint64(b.u32())
	case 8:
		return b.u64()
	}
	b.fail()
	return 0
}

// uleb reads an unsigned LEB128 number; bits beyond 64 are an error, not
// silently dropped, so a hostile encoding cannot alias a small value.
func (b *buf) uleb() uint64 {
	var v uint64
	var shift uint
	for {
		c := b.u8()
		if b.err != nil {
			return 0
		}
		if shift < 64 {
			if shift == 63 && c&0x7e != 0 {
				b.err = errors.New("LEB128 number overflows 64 bits")
			}
			v |= uint64(c&0x7f) << shift
		} else if c&0x7f != 0 {
			b.err = errors.New("LEB128 number overflows 64 bits")
		}
		shift += 7
		if c&0x80 == 0 {
			return v
		}
	}
}

// sleb reads a signed LEB128 number.
func (b *buf) sleb() int64 {
	var v int64
	var shift uint
	var c uint8
	for {
		c = b.u8()
		if b.err != nil {
			return 0
		}
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			break
		}
	}
	if shift < 64 && c&0x40 != 0 {
		v |= -1 << shift
	}
	return v
}

// cstring reads a NUL-terminated string.
func (b *buf) cstring() string {
	for i := b.pos; i < len(b.data); i++ {
		if b.data[i] == 0 {
			s := string(b.data[b.pos:i])
			b.pos = i + 1
			return s
		}
	}
	b.fail()
	return ""
}
