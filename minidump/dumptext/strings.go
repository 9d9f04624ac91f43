package dumptext

import (
	"fmt"
	"strings"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
)

// Breakpad's string limits: MINIDUMP_STRINGs of at most 1024 UTF-16 units,
// Crashpad's UTF-8 strings of at most 1024 bytes.
const maxStringLength = 1024

// utf16ToUTF8 converts as Breakpad's UTF16ToUTF8 does, which is not quite
// UTF-16: only 0xdc00-0xdcff count as low surrogates, other units of the
// surrogate range pass through as 3-byte sequences, and a misplaced surrogate
// fails the whole string.
func utf16ToUTF8(units []uint16) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(units); i++ {
		w := units[i]
		var r uint32
		switch {
		case w >= 0xdc00 && w <= 0xdcff:
			return "", false
		case w >= 0xd800 && w <= 0xdbff:
			r = uint32(w-0xd7c0) << 10
			i++
			if i == len(units) {
				return "", false
			}
			lo := units[i]
			if lo < 0xdc00 || lo > 0xdcff {
				return "", false
			}
			r |= uint32(lo & 0x3ff)
		default:
			r = uint32(w)
		}
		switch {
		case r < 0x80:
			b.WriteByte(byte(r))
		case r < 0x800:
			b.WriteByte(0xc0 | byte(r>>6))
			b.WriteByte(0x80 | byte(r&0x3f))
		case r < 0x10000:
			b.WriteByte(0xe0 | byte(r>>12))
			b.WriteByte(0x80 | byte(r>>6&0x3f))
			b.WriteByte(0x80 | byte(r&0x3f))
		case r < 0x200000:
			b.WriteByte(0xf0 | byte(r>>18))
			b.WriteByte(0x80 | byte(r>>12&0x3f))
			b.WriteByte(0x80 | byte(r>>6&0x3f))
			b.WriteByte(0x80 | byte(r&0x3f))
		default:
			return "", false
		}
	}
	return b.String(), true
}

// units decodes little-endian UTF-16 code units.
func units(b []byte) []uint16 {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = le.Uint16(b[2*i:])
	}
	return u
}

// fixedUTF16 converts a fixed-size UTF-16 buffer up to its first NUL, as
// ConvertUTF16BufferToUTF8String; a bad string gives "".
func fixedUTF16(b []byte) string {
	u := units(b)
	for i, w := range u {
		if w == 0 {
			u = u[:i]
			break
		}
	}
	s, _ := utf16ToUTF8(u)
	return s
}

// readString reads a MINIDUMP_STRING at off as Minidump::ReadString.
func (d *dump) readString(off int64) (string, bool) {
	if !d.c.seek(off) {
		return "", false
	}
	n, ok := d.c.u32()
	if !ok || n%2 != 0 || n/2 > maxStringLength {
		return "", false
	}
	b, ok := d.c.read(int64(n))
	if !ok {
		return "", false
	}
	return utf16ToUTF8(units(b))
}

// readUTF8String reads Crashpad's length-prefixed UTF-8 string at off.
func (d *dump) readUTF8String(off int64) (string, bool) {
	if !d.c.seek(off) {
		return "", false
	}
	n, ok := d.c.u32()
	if !ok || n > maxStringLength {
		return "", false
	}
	b, ok := d.c.read(int64(n))
	return string(b), ok
}

// cstr is s as printf's %s shows it: up to its first NUL; escaped for a
// terminal (textsafe.Escape: the identity on printable text, so the output
// stays minidump_dump's, but a hostile name's escape sequences and line
// breaks are shown, not obeyed).
func cstr(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return textsafe.Escape(s)
}

// cbytes is cstr of bytes.
func cbytes(b []byte) string {
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	return textsafe.Escape(string(b))
}

// utcTime formats a time_t as Breakpad's TimeTToUTCString.
func utcTime(t uint32) string {
	return time.Unix(int64(t), 0).UTC().Format("2006-01-02 15:04:05")
}

// guidString formats a GUID as Breakpad's MDGUIDToString.
func guidString(b []byte) string {
	return fmt.Sprintf("%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		le.Uint32(b), le.Uint16(b[4:]), le.Uint16(b[6:]), b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
}
