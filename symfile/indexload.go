package symfile

import (
	"errors"
	"fmt"
	"hash/crc32"
)

// IndexError reports an index file that cannot be used: stale, foreign,
// of another version, or corrupt. It is rebuilt, never trusted.
type IndexError struct {
	Index string // path of the index file
	Err   error
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("%s: unusable symbol index: %v", e.Index, e.Err)
}
func (e *IndexError) Unwrap() error { return e.Err }

// fileFromIndex makes a File over data (the symbol data, named name) from
// the index file contents idx, which must have been written for source with
// the identities want. The arrays of the File point into idx. release says
// idx is a mapping whose pages may be dropped after they are checked.
func fileFromIndex(idx, data []byte, name, source string, wantSrc, wantData identity, release bool) (*File, error) {
	h, err := parseIndexHeader(idx, uint64(len(idx)))
	if err != nil {
		return nil, err
	}
	if h.src != wantSrc {
		return nil, fmt.Errorf("%w: the symbol file changed since the index was made", errStale)
	}
	if h.data != wantData || h.data.size != uint64(len(data)) {
		return nil, fmt.Errorf("%w: the symbol data changed since the index was made", errStale)
	}
	crc := crc32.New(castagnoli())
	crcOf(crc, idx, crcStart, release)
	if got, want := crc.Sum32(), leUint32(idx[24:]); got != want {
		return nil, fmt.Errorf("corrupt: CRC-32C %#08x, header says %#08x", got, want)
	}
	sec := func(i int) []byte {
		s := h.sections[i]
		return idx[s[0] : s[0]+s[1]]
	}
	meta, err := decodeMeta(sec(secMeta))
	if err != nil {
		return nil, fmt.Errorf("corrupt meta section: %w", err)
	}
	if meta.source != source {
		return nil, fmt.Errorf("foreign: made for %s", meta.source)
	}
	errs, err := decodeErrs(sec(secErrs))
	if err != nil {
		return nil, fmt.Errorf("corrupt error section: %w", err)
	}
	f := &File{
		name:    name,
		data:    data,
		module:  meta.module,
		codeID:  meta.codeID,
		errs:    errs,
		limit:   meta.limit,
		funcs:   funcTable{fromBytes[funcEntry](sec(secFuncs)), fromBytes[funcEntry32](sec(secFuncs32))},
		pubs:    pubTable{fromBytes[pubEntry](sec(secPubs)), fromBytes[pubEntry32](sec(secPubs32))},
		cfi:     cfiTable{fromBytes[rangeEntry](sec(secCFI)), fromBytes[cfiEntry32](sec(secCFI32))},
		win:     fromBytes[winEntry](sec(secWin)),
		winType: sec(secWinType),
		files:   fromBytes[idEntry](sec(secFiles)),
		origins: fromBytes[idEntry](sec(secOrigins)),
		info:    fromBytes[uint64](sec(secInfo)),
	}
	if err := f.checkArrays(idx, release); err != nil {
		return nil, fmt.Errorf("corrupt: %w", err)
	}
	return f, nil
}

func leUint32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// checkArrays checks what the lookups rely on, so that even an index
// forged with a valid CRC cannot make them fail: every offset inside the
// data, ranges sorted and disjoint, ids sorted, STACK WIN types known.
func (f *File) checkArrays(idx []byte, release bool) error {
	size := uint64(len(f.data))
	if f.limit > size {
		return fmt.Errorf("load limit %d past the data's %d bytes", f.limit, size)
	}
	if len(f.info) > maxInfo {
		return fmt.Errorf("%d INFO records, at most %d kept", len(f.info), maxInfo)
	}
	for _, off := range f.info {
		if off >= size {
			return fmt.Errorf("INFO offset %d past the data", off)
		}
	}
	if len(f.win) != len(f.winType) {
		return errors.New("STACK WIN types do not match the records")
	}
	var err error
	check := func(ok bool, what string, i int) {
		if !ok && err == nil {
			err = fmt.Errorf("%s entry %d out of order or out of bounds", what, i)
		}
	}
	if err := f.checkRanges(idx, release, check); err != nil {
		return err
	}
	inWindows(idx, asBytes(f.win), release, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			check(f.win[i].off < f.limit && f.winType[i] < uint8(len(f.winMaps)), "STACK WIN", i)
		}
	}, len(f.win))
	for _, ids := range []struct {
		name string
		s    []idEntry
	}{{"FILE", f.files}, {"INLINE_ORIGIN", f.origins}} {
		inWindows(idx, asBytes(ids.s), release, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				check(ids.s[i].off < size && (i == 0 || ids.s[i-1].id <= ids.s[i].id), ids.name, i)
			}
		}, len(ids.s))
	}
	return err
}

// checkRanges is checkArrays for the FUNC, PUBLIC and STACK CFI INIT
// records, of either layout (a kind in both is refused); it passes each
// entry's verdict to check.
func (f *File) checkRanges(idx []byte, release bool, check func(ok bool, what string, i int)) error {
	if (f.funcs.wide != nil && f.funcs.narrow != nil) || (f.pubs.wide != nil && f.pubs.narrow != nil) ||
		(f.cfi.wide != nil && f.cfi.narrow != nil) {
		return errors.New("records of one kind in both layouts")
	}
	size := uint64(len(f.data))
	// One loop per kind and layout: generic methods, as indirect calls,
	// doubled the time a warm run takes to check the index.
	w, n := f.funcs.wide, f.funcs.narrow
	inWindows(idx, asBytes(w), release, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			e := w[i]
			check(e.base <= e.high && e.off < f.limit && e.off <= e.end && e.end <= size &&
				(i == 0 || w[i-1].high < e.base), "FUNC", i)
		}
	}, len(w))
	inWindows(idx, asBytes(n), release, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			e := n[i]
			check(e.base <= e.high && uint64(e.off) < f.limit && e.off <= e.end && uint64(e.end) <= size &&
				(i == 0 || n[i-1].high < e.base), "FUNC", i)
		}
	}, len(n))
	pw, pn := f.pubs.wide, f.pubs.narrow
	inWindows(idx, asBytes(pw), release, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			check(pw[i].off < f.limit && (i == 0 || pw[i-1].addr < pw[i].addr), "PUBLIC", i)
		}
	}, len(pw))
	inWindows(idx, asBytes(pn), release, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			check(uint64(pn[i][2]) < f.limit && (i == 0 || pn[i-1].lo() < pn[i].lo()), "PUBLIC", i)
		}
	}, len(pn))
	cw, cn := f.cfi.wide, f.cfi.narrow
	inWindows(idx, asBytes(cw), release, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			e := cw[i]
			check(e.base <= e.high && e.off < f.limit && (i == 0 || cw[i-1].high < e.base), "STACK CFI INIT", i)
		}
	}, len(cw))
	inWindows(idx, asBytes(cn), release, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			e := cn[i]
			check(e.base <= e.hi() && uint64(e.off) < f.limit && (i == 0 || cn[i-1].hi() < e.base), "STACK CFI INIT", i)
		}
	}, len(cn))
	return nil
}

// inWindows calls fn over the entries of an array section of n entries in
// windows of about 4 MB, releasing each window's pages of the mapping idx
// after it when release is set.
func inWindows(idx, sec []byte, release bool, fn func(lo, hi int), n int) {
	if n == 0 {
		return
	}
	per := len(sec) / n
	step := max(1, (4<<20)/per)
	base := 0
	if release {
		base = int(uintptrOf(sec) - uintptrOf(idx))
	}
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		if release {
			prefaultPages(idx, base+lo*per, base+hi*per)
		}
		fn(lo, hi)
		if release {
			releasePages(idx, base+lo*per, base+hi*per)
		}
	}
}
