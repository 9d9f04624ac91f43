package symfile

import (
	"cmp"
	"math"
	"slices"
	"unsafe"
)

// The FUNC, PUBLIC and STACK CFI INIT arrays come in two layouts. The wide
// one (funcEntry, pubEntry, rangeEntry) holds 64-bit offsets; the narrow
// one holds 32-bit offsets, and is what the index pass of a file on disk
// under 4 GiB builds: the arrays, the arenas' memory the pass zeroes and
// faults in, and the index file written are about 30% smaller (94.9 →
// 67 MB for the 1.33 GB stress file), as is the memory lookups touch.
//
// Go's layout makes the narrow entries types of their own: a struct is
// aligned to its widest field, so {addr uint64; off uint32} is as large as
// two uint64s.
//   - FUNC: {base, high uint64; off, end uint32}, 24 bytes for 32. A
//     32-bit size instead of high ({base uint64; size, off, end uint32})
//     is padded to 24 bytes too, and only [5]uint32 (20 bytes) would be
//     smaller: 4 bytes a record (2.6 MB of the stress file's 0.65 M FUNC
//     records) for a size that a file could break and two loads per
//     address. Kept at 24: no FUNC record breaks the narrow layout.
//   - PUBLIC: [3]uint32 (the address in two halves, the offset), 12 bytes
//     for 16.
//   - STACK CFI INIT: {base uint64; last, off uint32}, 16 bytes for 24,
//     last = high-base. A range of more than 4 GiB does not fit: the
//     sequencer then keeps the file's CFI records in the wide layout
//     (kindArena), exactly, whatever the chunk it is found in.
// Files of 4 GiB and more keep the wide layout. Each kind of record is in
// one layout or the other (table), which the index file records by the
// section it fills (indexfile.go). Data in memory (NewFile), and files
// where memory cannot be reserved, are indexed on the heap in the wide
// layout.

// funcEntry32 is a funcEntry of the narrow layout.
type funcEntry32 struct {
	base, high uint64
	off, end   uint32
}

func (e funcEntry32) lo() uint64  { return e.base }
func (e funcEntry32) hi() uint64  { return e.high }
func (e funcEntry32) ord() uint64 { return uint64(e.off) }
func (e funcEntry32) widen() funcEntry {
	return funcEntry{e.base, e.high, uint64(e.off), uint64(e.end)}
}

// pubEntry32 is a pubEntry of the narrow layout: the address's low and
// high halves, and the offset.
type pubEntry32 [3]uint32

func (e pubEntry32) lo() uint64      { return uint64(e[0]) | uint64(e[1])<<32 }
func (e pubEntry32) ord() uint64     { return uint64(e[2]) }
func (e pubEntry32) widen() pubEntry { return pubEntry{e.lo(), uint64(e[2])} }

func (e pubEntry) lo() uint64  { return e.addr }
func (e pubEntry) ord() uint64 { return e.off }

// cfiEntry32 is a STACK CFI INIT rangeEntry of the narrow layout.
type cfiEntry32 struct {
	base      uint64
	last, off uint32 // high - base, and the offset
}

func (e cfiEntry32) lo() uint64  { return e.base }
func (e cfiEntry32) hi() uint64  { return e.base + uint64(e.last) }
func (e cfiEntry32) ord() uint64 { return uint64(e.off) }
func (e cfiEntry32) widen() rangeEntry {
	return rangeEntry{e.base, e.hi(), uint64(e.off)}
}

// narrowFile reports whether the records of a file of size bytes can take
// the narrow layout: every offset and line end fits 32 bits.
func narrowFile(size uint64) bool { return size <= math.MaxUint32 }

// narrowFuncs converts src into dst (as long), and reports whether every
// record fits; the narrowing functions are concrete, so that the
// sequencer's copy makes no call per record.
func narrowFuncs(dst []funcEntry32, src []funcEntry) bool {
	dst = dst[:len(src)]
	for i, e := range src {
		if e.off > math.MaxUint32 || e.end > math.MaxUint32 {
			return false
		}
		dst[i] = funcEntry32{e.base, e.high, uint32(e.off), uint32(e.end)}
	}
	return true
}

func narrowPubs(dst []pubEntry32, src []pubEntry) bool {
	dst = dst[:len(src)]
	for i, e := range src {
		if e.off > math.MaxUint32 {
			return false
		}
		dst[i] = pubEntry32{uint32(e.addr), uint32(e.addr >> 32), uint32(e.off)}
	}
	return true
}

func narrowCFI(dst []cfiEntry32, src []rangeEntry) bool {
	dst = dst[:len(src)]
	for i, e := range src {
		if e.high-e.base > math.MaxUint32 || e.off > math.MaxUint32 {
			return false
		}
		dst[i] = cfiEntry32{e.base, uint32(e.high - e.base), uint32(e.off)}
	}
	return true
}

// cmpFunc32, cmpRange32 and cmpPub32 are cmpFunc, cmpRange and cmpPub for
// the narrow layout: the same orders.
func cmpFunc32(a, b funcEntry32) int {
	if a.base != b.base {
		return cmp.Compare(a.base, b.base)
	}
	return cmp.Compare(a.off, b.off)
}

func cmpRange32(a, b cfiEntry32) int {
	if a.base != b.base {
		return cmp.Compare(a.base, b.base)
	}
	return cmp.Compare(a.off, b.off)
}

func cmpPub32(a, b pubEntry32) int {
	if x, y := a.lo(), b.lo(); x != y {
		return cmp.Compare(x, y)
	}
	return cmp.Compare(a[2], b[2])
}

// widener is a narrow entry, which converts to its wide one W.
type widener[W any] interface {
	widen() W
}

// table is one kind of record, sorted, in one of the two layouts: narrow
// is nil in the wide layout, wide is nil in the narrow one.
type table[W any, N widener[W]] struct {
	wide   []W
	narrow []N
}

type (
	funcTable = table[funcEntry, funcEntry32]
	pubTable  = table[pubEntry, pubEntry32]
	cfiTable  = table[rangeEntry, cfiEntry32]
)

func (t table[W, N]) len() int {
	if t.narrow != nil {
		return len(t.narrow)
	}
	return len(t.wide)
}

// heapBytes is the memory of the table's arrays.
func (t table[W, N]) heapBytes() int64 {
	var w W
	var n N
	return int64(cap(t.wide))*int64(unsafe.Sizeof(w)) + int64(cap(t.narrow))*int64(unsafe.Sizeof(n))
}

// dropFrom removes the entries at or after the load limit from both layouts.
func (t *table[W, N]) dropFrom(limit uint64, wideOrd func(W) uint64, narrowOrd func(N) uint64) {
	t.wide = slices.DeleteFunc(t.wide, func(e W) bool { return wideOrd(e) >= limit })
	t.narrow = slices.DeleteFunc(t.narrow, func(e N) bool { return narrowOrd(e) >= limit })
}

func widenAll[W any, N widener[W]](s []N) []W {
	out := make([]W, len(s))
	for i, e := range s {
		out[i] = e.widen()
	}
	return out
}

// The lookups' binary searches are written out per layout: findRange's
// generic methods and sort.Search's closure are indirect calls, which
// cost more than the narrower entries save (BenchmarkHasFunctionAt).

// findFunc is findRange over f.funcs.
func (f *File) findFunc(addr uint64) (at, near int) {
	if n := f.funcs.narrow; n != nil {
		lo, hi := 0, len(n)
		for lo < hi {
			if m := int(uint(lo+hi) >> 1); n[m].base <= addr {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return foundAt(lo-1, lo > 0 && addr <= n[lo-1].high)
	}
	w := f.funcs.wide
	lo, hi := 0, len(w)
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); w[m].base <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return foundAt(lo-1, lo > 0 && addr <= w[lo-1].high)
}

// findCFI is findRange over f.cfi.
func (f *File) findCFI(addr uint64) (at, near int) {
	if n := f.cfi.narrow; n != nil {
		lo, hi := 0, len(n)
		for lo < hi {
			if m := int(uint(lo+hi) >> 1); n[m].base <= addr {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return foundAt(lo-1, lo > 0 && addr-n[lo-1].base <= uint64(n[lo-1].last))
	}
	w := f.cfi.wide
	lo, hi := 0, len(w)
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); w[m].base <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return foundAt(lo-1, lo > 0 && addr <= w[lo-1].high)
}

// foundAt returns findRange's answer for the last range i starting at or
// below the address (-1: none), which contains it when in is set.
func foundAt(i int, in bool) (at, near int) {
	switch {
	case i < 0:
		return -1, -1
	case in:
		return i, i
	}
	return -1, i
}

// publicAtOrBelow returns the index of the last PUBLIC record at or below
// addr, or -1.
func (f *File) publicAtOrBelow(addr uint64) int {
	if n := f.pubs.narrow; n != nil {
		lo, hi := 0, len(n)
		for lo < hi {
			if m := int(uint(lo+hi) >> 1); n[m].lo() <= addr {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo - 1
	}
	w := f.pubs.wide
	lo, hi := 0, len(w)
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); w[m].addr <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// funcAt, pubAt and cfiAt are table.at without its generic call.
func (f *File) funcAt(i int) funcEntry {
	if n := f.funcs.narrow; n != nil {
		return n[i].widen()
	}
	return f.funcs.wide[i]
}

func (f *File) pubAt(i int) pubEntry {
	if n := f.pubs.narrow; n != nil {
		return n[i].widen()
	}
	return f.pubs.wide[i]
}

func (f *File) cfiAt(i int) rangeEntry {
	if n := f.cfi.narrow; n != nil {
		return n[i].widen()
	}
	return f.cfi.wide[i]
}
