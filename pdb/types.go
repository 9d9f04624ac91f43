package pdb

import (
	"encoding/binary"
	"fmt"
)

// TypeStream is the TPI (types) or IPI (ids) stream: records numbered from
// Begin.
type TypeStream struct {
	stream int
	Begin  uint32
	buf    []byte
	offs   []uint32 // each record's offset in buf (at its kind field)
}

const (
	tpiHeaderMin = 56
	// maxTypeRecords bounds a type stream's records.
	maxTypeRecords = 1 << 26
)

// Types reads the TPI stream.
func (f *File) Types() (*TypeStream, error) {
	if f.tpi == nil {
		t, err := f.readTypeStream(StreamTPI)
		if err != nil {
			return nil, fmt.Errorf("TPI stream: %w", err)
		}
		f.tpi = t
	}
	return f.tpi, nil
}

// IDs reads the IPI stream; a PDB without one has an empty stream.
func (f *File) IDs() (*TypeStream, error) {
	if f.ipi == nil {
		if _, ok := f.StreamSize(StreamIPI); !ok {
			f.ipi = &TypeStream{stream: StreamIPI, Begin: 0x1000}
			return f.ipi, nil
		}
		t, err := f.readTypeStream(StreamIPI)
		if err != nil {
			return nil, fmt.Errorf("IPI stream: %w", err)
		}
		f.ipi = t
	}
	return f.ipi, nil
}

func (f *File) readTypeStream(s int) (*TypeStream, error) {
	b, err := f.Stream(s)
	if err != nil {
		return nil, err
	}
	t := &TypeStream{stream: s, Begin: 0x1000}
	if len(b) == 0 {
		return t, nil
	}
	r := newReader(s, b, 0)
	r.u32() // version
	hdr, begin, end, size := r.u32(), r.u32(), r.u32(), r.u32()
	if r.err != nil {
		return nil, r.err
	}
	if hdr < tpiHeaderMin || uint64(hdr)+uint64(size) > uint64(len(b)) {
		return nil, errAt(s, 4, "header of %d bytes and %d bytes of records in a %d-byte stream", hdr, size, len(b))
	}
	if end < begin || end-begin > maxTypeRecords || uint64(end-begin)*4 > uint64(size) {
		return nil, errAt(s, 8, "type indexes %#x..%#x do not fit %d bytes of records", begin, end, size)
	}
	t.Begin, t.buf = begin, b[hdr:hdr+size]
	t.offs = make([]uint32, 0, end-begin)
	rr := newReader(s, t.buf, int64(hdr))
	for rr.left() > 0 && len(t.offs) < int(end-begin) {
		n := rr.u16()
		at := rr.off
		rr.bytes(int(n), "type record")
		if rr.err != nil {
			return nil, rr.err
		}
		if n < 2 {
			return nil, errAt(s, int64(hdr)+int64(at-2), "type record of length %d", n)
		}
		t.offs = append(t.offs, uint32(at))
	}
	return t, nil
}

// Record returns the kind and data (after the kind) of record index.
func (t *TypeStream) Record(index uint32) (kind uint16, data []byte, ok bool) {
	if index < t.Begin || uint64(index-t.Begin) >= uint64(len(t.offs)) {
		return 0, nil, false
	}
	at := t.offs[index-t.Begin]
	n := uint32(binary.LittleEndian.Uint16(t.buf[at-2:]))
	rec := t.buf[at : at+n]
	return binary.LittleEndian.Uint16(rec), rec[2:], true
}
