package minidump

import (
	"bytes"
	"fmt"
	"unicode/utf16"
)

// Mozilla's streams that only rust-minidump's JSON report shows.
const (
	StreamMozMacOSBootargs StreamType = 0x4d7a0002
	StreamMozSoftErrors    StreamType = 0x4d7a0004
)

// maxMozStream bounds what is read of one of Mozilla's streams (and of the
// boot-args string): real ones are a few hundred bytes.
const maxMozStream = 1 << 20

// firstStream returns the bytes of the first stream of type t, at most
// maxMozStream of them. Mozilla's streams are read from the first entry of
// their type, as the processor always read them (stream, for Breakpad's
// streams, takes the last).
func (f *File) firstStream(t StreamType) ([]byte, StreamInfo, error) {
	for _, s := range f.dir {
		if s.Type != t {
			continue
		}
		if s.Size > maxMozStream {
			return nil, s, &FormatError{s.Off, s.Name, fmt.Sprintf("size %d over the %d-byte bound", s.Size, maxMozStream)}
		}
		if s.Size == 0 {
			return []byte{}, s, nil // present and empty, wherever it points
		}
		b, err := f.bytesAt(s.Off, int64(s.Size), s.Name)
		return b, s, err
	}
	return nil, StreamInfo{Type: t, Name: t.String()}, noStreamError(t)
}

// MozSoftErrors returns Mozilla's soft-errors stream (0x4d7a0004) as
// stored: JSON text, possibly NUL-padded; a copy, valid after Close, and
// not nil (maybe empty) when the stream is present.
func (f *File) MozSoftErrors() ([]byte, error) {
	b, _, err := f.firstStream(StreamMozSoftErrors)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}

// MacBootArgs returns the kernel boot arguments of Mozilla's macOS
// boot-args stream (0x4d7a0002, MDRawMacBootargs: stream_type u32, then the
// RVA of a MINIDUMP_STRING). Invalid UTF-16 becomes U+FFFD.
func (f *File) MacBootArgs() (string, error) {
	b, s, err := f.firstStream(StreamMozMacOSBootargs)
	if err != nil {
		return "", err
	}
	if len(b) < 8 {
		return "", &FormatError{s.Off, s.Name, fmt.Sprintf("%d bytes, 8 needed", len(b))}
	}
	rva := int64(le.Uint32(b[4:]))
	var hdr [4]byte
	if err := f.readAt(hdr[:], rva, s.Name); err != nil {
		return "", err
	}
	n := int64(le.Uint32(hdr[:]))
	if n%2 != 0 || n > maxMozStream {
		return "", &FormatError{rva, s.Name, fmt.Sprintf("boot-args string length %d invalid", n)}
	}
	str, err := f.bytesAt(rva+4, n, s.Name)
	if err != nil {
		return "", err
	}
	u := make([]uint16, n/2)
	for i := range u {
		u[i] = le.Uint16(str[2*i:])
	}
	return string(utf16.Decode(u)), nil
}
