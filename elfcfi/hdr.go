package elfcfi

import "sort"

// searchTable is .eh_frame_hdr's sorted table of (initial location, FDE
// address) pairs, each entry fixed-size in the table encoding.
type searchTable struct {
	data      []byte // the table's bytes
	enc       uint8
	entrySize int
	count     int
	hdrAddr   uint64
	tableOff  uint64 // offset of data in .eh_frame_hdr
}

// parseSearchTable reads .eh_frame_hdr. A header without a usable table
// (no table, a variable-size encoding) gives nil and no error: lookups then
// index .eh_frame itself. A malformed header is an error.
func parseSearchTable(hdr []byte, hdrAddr uint64, s *Section) (*searchTable, error) {
	const name = ".eh_frame_hdr"
	b := &buf{Data: hdr, Order: s.arch.Order}
	version := b.U8()
	ptrEnc, countEnc, tableEnc := b.U8(), b.U8(), b.U8()
	if b.Err != nil {
		return nil, formatErr(name, 0, "truncated header")
	}
	if version != 1 {
		return nil, formatErr(name, 0, "version %d not supported", version)
	}
	if _, err := hdrPointer(b, ptrEnc, hdrAddr, s.arch); err != nil {
		return nil, formatErr(name, b.Off(), "eh_frame_ptr: %v", err)
	}
	if countEnc == peOmit || tableEnc == peOmit {
		return nil, nil
	}
	count, err := hdrPointer(b, countEnc, hdrAddr, s.arch)
	if err != nil {
		return nil, formatErr(name, b.Off(), "fde_count: %v", err)
	}
	size := fixedSize(tableEnc, s.arch.PtrSize)
	if size == 0 {
		return nil, nil
	}
	t := &searchTable{enc: tableEnc, entrySize: 2 * size, hdrAddr: hdrAddr, tableOff: b.Off()}
	if count > uint64(b.Left()/t.entrySize) {
		return nil, formatErr(name, b.Off(), "fde_count %d: the table has room for %d entries", count, b.Left()/t.entrySize)
	}
	t.count = int(count)
	t.data = hdr[b.Pos : b.Pos+t.count*t.entrySize]
	return t, nil
}

// fixedSize is the size of a pointer in encoding enc, 0 when variable.
func fixedSize(enc uint8, ptrSize int) int {
	switch enc & 0x0f {
	case peAbsptr:
		return ptrSize
	case peUdata2, peSdata2:
		return 2
	case peUdata4, peSdata4:
		return 4
	case peUdata8, peSdata8:
		return 8
	}
	return 0
}

// hdrPointer reads a pointer of .eh_frame_hdr: pc-relative pointers are
// relative to their own address, data-relative ones to the header's start.
func hdrPointer(b *buf, enc uint8, hdrAddr uint64, arch Arch) (uint64, error) {
	a := arch
	a.DataAddr = hdrAddr
	// The buffer's offsets are offsets in .eh_frame_hdr, so a section
	// based at the header's address resolves pc-relative pointers.
	s := &Section{kind: EHFrame, arch: a, addr: hdrAddr}
	return s.readPointer(b, enc&^peIndirect, 0)
}

func (t *searchTable) entry(s *Section, i int) (loc, fde uint64) {
	b := &buf{Data: t.data, Pos: i * t.entrySize, Base: t.tableOff, Order: s.arch.Order}
	loc, _ = hdrPointer(b, t.enc, t.hdrAddr, s.arch)
	fde, _ = hdrPointer(b, t.enc, t.hdrAddr, s.arch)
	return loc, fde
}

func (t *searchTable) find(s *Section, pc uint64) (*FDE, error) {
	i := sort.Search(t.count, func(i int) bool {
		loc, _ := t.entry(s, i)
		return loc > pc
	}) - 1
	if i < 0 {
		return nil, ErrNotFound
	}
	_, fdeAddr := t.entry(s, i)
	if fdeAddr < s.addr || fdeAddr-s.addr >= uint64(len(s.data)) {
		return nil, formatErr(".eh_frame_hdr", t.tableOff+uint64(i*t.entrySize), "FDE address %#x is outside .eh_frame", fdeAddr)
	}
	f, err := s.FDEAt(fdeAddr - s.addr)
	if err != nil {
		return nil, err
	}
	if pc < f.Begin || pc >= f.End {
		return nil, ErrNotFound
	}
	return f, nil
}
