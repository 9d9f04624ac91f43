package compactunwind

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// Arch is the architecture whose encodings a table holds.
type Arch int

const (
	X86_64 Arch = iota
	ARM64
)

// Encoding bits shared by both architectures.
const (
	IsNotFunctionStart = 0x80000000
	HasLSDA            = 0x40000000
	PersonalityMask    = 0x30000000
	ModeMask           = 0x0f000000
)

// FormatError reports a malformed __unwind_info section: the byte offset
// in the section and what was wrong there.
type FormatError struct {
	Offset uint64
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("__unwind_info: offset %#x: %s", e.Offset, e.Msg)
}

func formatErr(off uint64, format string, args ...any) *FormatError {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// Entry is one function's (or range's) compact unwind encoding.
type Entry struct {
	Start, End  uint64 // addresses: the image base plus the table's offsets
	Encoding    uint32
	Personality uint64 // the personality pointer's address (its GOT slot), 0 for none
	LSDA        uint64 // the LSDA's address, 0 for none
}

// Mode is the encoding's mode bits (UNWIND_X86_64_MODE_* or
// UNWIND_ARM64_MODE_*).
func (e Entry) Mode() uint32 { return (e.Encoding & ModeMask) >> 24 }

// Table is a parsed __unwind_info section.
type Table struct {
	Arch    Arch
	entries []Entry
}

// Entries returns the table's entries in address order.
func (t *Table) Entries() []Entry { return t.entries }

// Find returns the entry covering addr.
func (t *Table) Find(addr uint64) (Entry, bool) {
	i := sort.Search(len(t.entries), func(i int) bool { return t.entries[i].End > addr })
	if i < len(t.entries) && t.entries[i].Start <= addr {
		return t.entries[i], true
	}
	return Entry{}, false
}

type reader struct {
	data []byte
}

func (r reader) u32(off uint64) (uint32, error) {
	if off > uint64(len(r.data)) || uint64(len(r.data))-off < 4 {
		return 0, formatErr(off, "4 bytes past the section's end (%#x)", len(r.data))
	}
	return binary.LittleEndian.Uint32(r.data[off:]), nil
}

func (r reader) u16(off uint64) (uint16, error) {
	if off > uint64(len(r.data)) || uint64(len(r.data))-off < 2 {
		return 0, formatErr(off, "2 bytes past the section's end (%#x)", len(r.data))
	}
	return binary.LittleEndian.Uint16(r.data[off:]), nil
}

// array checks that count elements of size bytes at off fit the section.
func (r reader) array(off, count, size uint64, what string) error {
	if off > uint64(len(r.data)) || count > (uint64(len(r.data))-off)/size {
		return formatErr(off, "%s: %d entries of %d bytes past the section's end (%#x)", what, count, size, len(r.data))
	}
	return nil
}

type header struct {
	common, commonCount, pers, persCount, index, indexCount uint64
}

// Parse reads an __unwind_info section whose offsets count from base (the
// image's __TEXT address).
func Parse(data []byte, base uint64, arch Arch) (*Table, error) {
	r := reader{data}
	var f [7]uint32
	for i := range f {
		v, err := r.u32(uint64(4 * i))
		if err != nil {
			return nil, err
		}
		f[i] = v
	}
	if f[0] != 1 {
		return nil, formatErr(0, "version %d, not 1", f[0])
	}
	h := header{uint64(f[1]), uint64(f[2]), uint64(f[3]), uint64(f[4]), uint64(f[5]), uint64(f[6])}
	for _, a := range []struct {
		off, n uint64
		what   string
	}{{h.common, h.commonCount, "common encodings"}, {h.pers, h.persCount, "personalities"}, {h.index, h.indexCount, "index"}} {
		size := uint64(4)
		if a.what == "index" {
			size = 12
		}
		if err := r.array(a.off, a.n, size, a.what); err != nil {
			return nil, err
		}
	}
	t := &Table{Arch: arch}
	if h.indexCount == 0 {
		return t, nil
	}
	for i := uint64(0); i+1 < h.indexCount; i++ {
		if err := t.readPage(r, h, i, base); err != nil {
			return nil, err
		}
	}
	// The last index entry is a sentinel: its function offset ends the
	// last range.
	end, _ := r.u32(h.index + 12*(h.indexCount-1))
	t.finish(base + uint64(end))
	return t, nil
}

// readPage reads the second-level page of index entry i.
func (t *Table) readPage(r reader, h header, i, base uint64) error {
	at := h.index + 12*i
	fn, _ := r.u32(at)
	page, _ := r.u32(at + 4)
	lsdaStart, _ := r.u32(at + 8)
	lsdaEnd, _ := r.u32(at + 12 + 8)
	if lsdaEnd < lsdaStart || r.array(uint64(lsdaStart), uint64(lsdaEnd-lsdaStart)/8, 8, "LSDA array") != nil {
		return formatErr(at+8, "LSDA array %#x-%#x outside the section", lsdaStart, lsdaEnd)
	}
	lsdas := lsdaArray{r: r, start: uint64(lsdaStart), end: uint64(lsdaEnd), base: base}
	if page == 0 {
		return nil
	}
	kind, err := r.u32(uint64(page))
	if err != nil {
		return err
	}
	switch kind {
	case 2:
		return t.regularPage(r, h, uint64(page), base, lsdas)
	case 3:
		return t.compressedPage(r, h, uint64(page), base+uint64(fn), base, lsdas)
	}
	return formatErr(uint64(page), "second-level page kind %d, not 2 (regular) or 3 (compressed)", kind)
}

func (t *Table) regularPage(r reader, h header, page, base uint64, lsdas lsdaArray) error {
	entOff, err := r.u16(page + 4)
	if err != nil {
		return err
	}
	count, err := r.u16(page + 6)
	if err != nil {
		return err
	}
	ents := page + uint64(entOff)
	if err := r.array(ents, uint64(count), 8, "regular page entries"); err != nil {
		return err
	}
	for j := uint64(0); j < uint64(count); j++ {
		fn, _ := r.u32(ents + 8*j)
		enc, _ := r.u32(ents + 8*j + 4)
		if err := t.add(r, h, base+uint64(fn), enc, lsdas, ents+8*j); err != nil {
			return err
		}
	}
	return nil
}

func (t *Table) compressedPage(r reader, h header, page, first, base uint64, lsdas lsdaArray) error {
	var f [4]uint16
	for i := range f {
		v, err := r.u16(page + 4 + 2*uint64(i))
		if err != nil {
			return err
		}
		f[i] = v
	}
	ents, encs := page+uint64(f[0]), page+uint64(f[2])
	if err := r.array(ents, uint64(f[1]), 4, "compressed page entries"); err != nil {
		return err
	}
	if err := r.array(encs, uint64(f[3]), 4, "page encodings"); err != nil {
		return err
	}
	for j := uint64(0); j < uint64(f[1]); j++ {
		v, _ := r.u32(ents + 4*j)
		idx := uint64(v >> 24)
		var enc uint32
		switch {
		case idx < h.commonCount:
			enc, _ = r.u32(h.common + 4*idx)
		case idx-h.commonCount < uint64(f[3]):
			enc, _ = r.u32(encs + 4*(idx-h.commonCount))
		default:
			return formatErr(ents+4*j, "encoding index %d past the %d common and %d page encodings", idx, h.commonCount, f[3])
		}
		if err := t.add(r, h, first+uint64(v&0xffffff), enc, lsdas, ents+4*j); err != nil {
			return err
		}
	}
	return nil
}

// add appends an entry, resolving its personality and LSDA.
func (t *Table) add(r reader, h header, addr uint64, enc uint32, lsdas lsdaArray, at uint64) error {
	e := Entry{Start: addr, Encoding: enc}
	if p := uint64(enc&PersonalityMask) >> 28; p != 0 {
		if p > h.persCount {
			return formatErr(at, "personality %d of %d", p, h.persCount)
		}
		v, _ := r.u32(h.pers + 4*(p-1))
		e.Personality = lsdas.base + uint64(v)
	}
	if enc&HasLSDA != 0 {
		e.LSDA = lsdas.find(addr)
	}
	if n := len(t.entries); n > 0 && addr < t.entries[n-1].Start {
		return formatErr(at, "function %#x before the previous entry's %#x", addr, t.entries[n-1].Start)
	}
	t.entries = append(t.entries, e)
	return nil
}

// finish sets each entry's end to the next entry's start.
func (t *Table) finish(end uint64) {
	for i := range t.entries {
		if i+1 < len(t.entries) {
			t.entries[i].End = t.entries[i+1].Start
		} else {
			t.entries[i].End = max(end, t.entries[i].Start)
		}
	}
}

// lsdaArray is an index entry's part of the LSDA array: (function, LSDA)
// offset pairs in function order.
type lsdaArray struct {
	r          reader
	start, end uint64
	base       uint64
}

func (l lsdaArray) find(addr uint64) uint64 {
	n := (l.end - l.start) / 8
	i := sort.Search(int(n), func(i int) bool {
		fn, _ := l.r.u32(l.start + 8*uint64(i))
		return l.base+uint64(fn) >= addr
	})
	if uint64(i) < n {
		if fn, _ := l.r.u32(l.start + 8*uint64(i)); l.base+uint64(fn) == addr {
			lsda, _ := l.r.u32(l.start + 8*uint64(i) + 4)
			return l.base + uint64(lsda)
		}
	}
	return 0
}
