package dwarfbuf

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// The LEB128 examples of the DWARF 5 standard (section 7.6, tables 7.8
// and 7.9), and the edges of 64 bits.
func TestLEB128(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want uint64
		err  error
	}{
		{[]byte{2}, 2, nil},
		{[]byte{127}, 127, nil},
		{[]byte{0x80, 1}, 128, nil},
		{[]byte{0x81, 1}, 129, nil},
		{[]byte{0x82, 1}, 130, nil},
		{[]byte{0xb9, 0x64}, 12857, nil},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1}, math.MaxUint64, nil},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0}, 0, nil}, // padded with zero groups
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 3}, 0, ErrLEBOverflow},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1}, 0, ErrLEBOverflow},
		{[]byte{0x80}, 0, ErrShort},
	} {
		b := &Buf{Data: tc.in}
		if got := b.ULEB(); got != tc.want || !errors.Is(b.Err, tc.err) {
			t.Errorf("ULEB(% x) = %d, %v; want %d, %v", tc.in, got, b.Err, tc.want, tc.err)
		}
	}
	for _, tc := range []struct {
		in   []byte
		want int64
	}{
		{[]byte{2}, 2}, {[]byte{0x7e}, -2}, {[]byte{0xff, 0}, 127}, {[]byte{0x81, 0x7f}, -127},
		{[]byte{0x80, 1}, 128}, {[]byte{0x80, 0x7f}, -128}, {[]byte{0x81, 1}, 129}, {[]byte{0xff, 0x7e}, -129},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, math.MinInt64},
	} {
		b := &Buf{Data: tc.in}
		if got := b.SLEB(); got != tc.want || b.Err != nil {
			t.Errorf("SLEB(% x) = %d, %v; want %d", tc.in, got, b.Err, tc.want)
		}
	}
}

// A failed read sticks: it records its offset, reads nothing more, and
// every later read returns zero.
func TestFailureSticks(t *testing.T) {
	b := &Buf{Data: []byte{1, 2, 3, 'a', 0}, Base: 0x100, Order: binary.LittleEndian}
	if v := b.U16(); v != 0x201 || b.Off() != 0x102 {
		t.Fatalf("U16 = %#x at %#x", v, b.Off())
	}
	if v := b.U32(); v != 0 || !errors.Is(b.Err, ErrShort) || b.ErrOff != 0x102 {
		t.Fatalf("U32 past the end = %#x, %v at %#x", v, b.Err, b.ErrOff)
	}
	b.Seek(0x103)
	if s := b.CString(); s != "" || b.Left() != 0 || b.ErrOff != 0x102 {
		t.Errorf("read after a failure: %q, %d left, failure at %#x", s, b.Left(), b.ErrOff)
	}

	b = &Buf{Data: []byte{'a', 0, 'b'}, Base: 8}
	if s := b.CString(); s != "a" {
		t.Errorf("CString = %q", s)
	}
	if s := b.CString(); s != "" || !errors.Is(b.Err, ErrUnterminated) || b.ErrOff != 10 {
		t.Errorf("unterminated: %q, %v at %d", s, b.Err, b.ErrOff)
	}
	for _, off := range []uint64{7, 12} {
		b = &Buf{Data: []byte{1, 2, 3}, Base: 8}
		if b.Seek(off); !errors.Is(b.Err, ErrShort) {
			t.Errorf("Seek(%d) outside [8, 11]: %v", off, b.Err)
		}
	}
	b = &Buf{Data: []byte{1, 2, 3}, Base: 8}
	if b.Seek(11); b.Err != nil || b.Left() != 0 {
		t.Errorf("Seek to the end: %v, %d left", b.Err, b.Left())
	}
	b = &Buf{Data: []byte{1, 2, 3, 4}}
	if b.Uint(3); !errors.Is(b.Err, ErrSize) {
		t.Errorf("Uint(3): %v", b.Err)
	}
}

// FuzzBuf reads hostile bytes with every kind of read, in an order the
// input picks: no read may panic or move the cursor outside the data.
func FuzzBuf(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xff, 0x80, 0x80, 0x7f, 'x', 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		b := &Buf{Data: data, Base: 16, Order: binary.BigEndian}
		for i := 0; b.Err == nil && i < len(data); i++ {
			switch data[i] % 9 {
			case 0:
				b.U8()
			case 1:
				b.U16()
			case 2:
				b.U32()
			case 3:
				b.U64()
			case 4:
				b.ULEB()
			case 5:
				b.SLEB()
			case 6:
				b.CString()
			case 7:
				b.Bytes(uint64(data[i]))
			case 8:
				b.Seek(16 + uint64(data[i]))
			}
			if b.Pos < 0 || b.Pos > len(data) || b.Off() != 16+uint64(b.Pos) {
				t.Fatalf("cursor at %d of %d bytes", b.Pos, len(data))
			}
		}
		if b.Err != nil && (b.ErrOff < 16 || b.ErrOff > 16+uint64(len(data))) {
			t.Fatalf("failure recorded at %#x, outside the data", b.ErrOff)
		}
	})
}
