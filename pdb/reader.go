package pdb

import (
	"encoding/binary"
	"math"
)

// reader reads little-endian values from one stream's bytes; the first
// read past the end sets err (a FormatError at that offset) and every
// later read returns zero, so a parser checks r.err once per record.
type reader struct {
	b      []byte
	off    int
	stream int
	base   int64 // offset of b[0] in the stream, for errors
	err    error
}

func newReader(stream int, b []byte, base int64) *reader {
	return &reader{b: b, stream: stream, base: base}
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = errAt(r.stream, r.base+int64(r.off), format, args...)
	}
}

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) bytes(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > r.left() {
		r.fail("%s: %d bytes wanted, %d left", what, n, r.left())
		return nil
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b
}

func (r *reader) u8() uint8 {
	b := r.bytes(1, "truncated")
	if b == nil {
		return 0
	}
	return b[0]
}

func (r *reader) u16() uint16 {
	b := r.bytes(2, "truncated")
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint16(b)
}

func (r *reader) u32() uint32 {
	b := r.bytes(4, "truncated")
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

// cstring reads a NUL-terminated string.
func (r *reader) cstring() string {
	if r.err != nil {
		return ""
	}
	for i := r.off; i < len(r.b); i++ {
		if r.b[i] == 0 {
			s := string(r.b[r.off:i])
			r.off = i + 1
			return s
		}
	}
	r.fail("string without its terminating NUL")
	return ""
}

// align skips to the next multiple of n (relative to b[0]).
func (r *reader) align(n int) {
	if rem := r.off % n; rem != 0 {
		pad := n - rem
		if pad > r.left() {
			pad = r.left()
		}
		r.off += pad
	}
}

// count checks a count read from the file against the bytes left, each
// element taking at least size bytes, before anything is allocated for it.
func (r *reader) count(n uint32, size int, what string) int {
	if r.err != nil {
		return 0
	}
	if size <= 0 {
		size = 1
	}
	if uint64(n)*uint64(size) > uint64(r.left()) || uint64(n) > math.MaxInt32 {
		r.fail("%s: count %d needs %d bytes, %d left", what, n, uint64(n)*uint64(size), r.left())
		return 0
	}
	return int(n)
}

// cstringAt reads the NUL-terminated string at off in b, or "" with ok
// false when off is outside b or the string has no NUL.
func cstringAt(b []byte, off uint32) (string, bool) {
	if uint64(off) >= uint64(len(b)) {
		return "", false
	}
	for i := int(off); i < len(b); i++ {
		if b[i] == 0 {
			return string(b[off:i]), true
		}
	}
	return "", false
}
