package pdb

import "fmt"

// StringTable is the /names stream: the strings that C13 file checksums
// and FrameData programs name by offset.
type StringTable struct {
	stream int
	buf    []byte
}

const namesMagic = 0xeffeeffe

// Strings reads the /names stream; a PDB without one has an empty table.
func (f *File) Strings() (*StringTable, error) {
	if f.strs != nil {
		return f.strs, nil
	}
	n, ok, err := f.NamedStream("/names")
	if err != nil {
		return nil, err
	}
	if !ok {
		f.strs = &StringTable{stream: -1}
		return f.strs, nil
	}
	b, err := f.Stream(n)
	if err != nil {
		return nil, fmt.Errorf("/names: %w", err)
	}
	r := newReader(n, b, 0)
	magic, _, size := r.u32(), r.u32(), r.u32()
	if r.err == nil && magic != namesMagic {
		return nil, errAt(n, 0, "/names magic %#x, not %#x", magic, uint32(namesMagic))
	}
	buf := r.bytes(r.count(size, 1, "/names strings"), "/names strings")
	if r.err != nil {
		return nil, r.err
	}
	f.strs = &StringTable{stream: n, buf: buf}
	return f.strs, nil
}

// At returns the string at offset off.
func (t *StringTable) At(off uint32) (string, error) {
	s, ok := cstringAt(t.buf, off)
	if !ok {
		return "", errAt(t.stream, 12+int64(off), "string offset %#x outside the %d-byte /names table", off, len(t.buf))
	}
	return s, nil
}
