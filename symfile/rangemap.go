package symfile

import (
	"slices"
	"sort"
)

// span is an address range [base, high] (high inclusive, as Breakpad's maps
// key their ranges) with the index of the record it came from.
type span struct {
	base, high uint64
	idx        int
}

// spanOf returns the range of a record, or false when Breakpad's RangeMap
// would refuse it: size 0 or base+size-1 overflowing.
func spanOf(base, size uint64, idx int) (span, bool) {
	if size == 0 || base+(size-1) < base {
		return span{}, false
	}
	return span{base, base + size - 1, idx}, true
}

// exclusiveFirstWins keeps the ranges Breakpad's RangeMap (kExclusiveRanges)
// keeps when they are stored in file order: a range overlapping one already
// stored is dropped. in is in file order; the result is sorted by base.
func exclusiveFirstWins(in []span) []span {
	sorted := true
	for i := 1; i < len(in); i++ {
		if in[i].base <= in[i-1].high {
			sorted = false
			break
		}
	}
	if sorted {
		return in
	}
	// Exact emulation of insertion in file order: accepted ranges are kept in
	// sorted runs whose sizes are distinct powers of two (a binary counter),
	// so each test costs O(log² n) and the whole O(n log² n).
	var runs [][]span
	overlaps := func(s span) bool {
		for _, r := range runs {
			i := sort.Search(len(r), func(k int) bool { return r[k].high >= s.base })
			if i < len(r) && r[i].base <= s.high {
				return true
			}
		}
		return false
	}
	for _, s := range in {
		if overlaps(s) {
			continue
		}
		run := []span{s}
		for len(runs) > 0 && len(runs[len(runs)-1]) <= len(run) {
			run = mergeSpans(runs[len(runs)-1], run)
			runs = runs[:len(runs)-1]
		}
		runs = append(runs, run)
	}
	var out []span
	for i := len(runs) - 1; i >= 0; i-- {
		out = mergeSpans(out, runs[i])
	}
	return out
}

func mergeSpans(a, b []span) []span {
	out := make([]span, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i].base < b[j].base {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// findSpan returns the index of the range containing addr in sorted,
// disjoint spans, or -1; near is the index of the last range starting at or
// below addr (Breakpad's RetrieveNearestRange), or -1.
func findSpan(spans []span, addr uint64) (at, near int) {
	i := sort.Search(len(spans), func(k int) bool { return spans[k].base > addr }) - 1
	if i < 0 {
		return -1, -1
	}
	if addr <= spans[i].high {
		return i, i
	}
	return -1, i
}

// containedMap is Breakpad's ContainedRangeMap: ranges may nest but not
// partially overlap; a lookup returns the chain of ranges containing an
// address, innermost first.
type containedMap struct {
	allowEqual bool
	root       cmNode
}

type cmNode struct {
	base, high uint64
	entry      int
	children   []*cmNode // sorted by high
}

func (m *containedMap) store(base, size uint64, entry int) bool {
	if size == 0 || base+(size-1) < base {
		return false
	}
	return m.root.store(base, base+size-1, entry, m.allowEqual)
}

func (n *cmNode) store(base, high uint64, entry int, allowEqual bool) bool {
	c := n.children
	ib := sort.Search(len(c), func(k int) bool { return c[k].high >= base })
	ih := sort.Search(len(c), func(k int) bool { return c[k].high >= high })
	if ib == ih && ib < len(c) && base >= c[ib].base {
		if !allowEqual && c[ib].base == base && c[ib].high == high {
			return false
		}
		return c[ib].store(base, high, entry, allowEqual)
	}
	containsHigh := ih < len(c) && high >= c[ih].base
	if (ib < len(c) && base > c[ib].base) || (containsHigh && high < c[ih].high) {
		return false
	}
	if containsHigh {
		ih++
	}
	child := &cmNode{base: base, high: high, entry: entry}
	if ib == ih {
		n.children = slices.Insert(c, ib, child)
		return true
	}
	child.children = append([]*cmNode(nil), c[ib:ih]...)
	out := make([]*cmNode, 0, len(c)-(ih-ib)+1)
	out = append(out, c[:ib]...)
	out = append(out, child)
	n.children = append(out, c[ih:]...)
	return true
}

// lookup appends the entries of the ranges containing addr, innermost first.
func (m *containedMap) lookup(addr uint64, out []int) []int {
	return m.root.lookup(addr, out)
}

func (n *cmNode) lookup(addr uint64, out []int) []int {
	c := n.children
	i := sort.Search(len(c), func(k int) bool { return c[k].high >= addr })
	if i == len(c) || addr < c[i].base {
		return out
	}
	out = c[i].lookup(addr, out)
	return append(out, c[i].entry)
}
