package microdump

import "sort"

// moduleMap is an address range map with Breakpad's two merge rules for
// modules: exclusive ranges (an overlapping module is refused), or, for
// Android, "truncate upper": of two overlapping modules the one with the
// higher range loses the overlap. The rules are reproduced exactly because
// they decide which module an address belongs to and which modules are listed.
type moduleMap struct {
	truncateUpper bool
	entries       []rangeEntry // sorted by high, ranges disjoint
}

type rangeEntry struct {
	base, high uint64 // inclusive range
	mod        int    // index of the module
}

// lowerBound returns the index of the first entry whose high is >= addr.
func (m *moduleMap) lowerBound(addr uint64) int {
	return sort.Search(len(m.entries), func(i int) bool { return m.entries[i].high >= addr })
}

// store adds [base, base+size) for module mod and reports whether it was kept.
func (m *moduleMap) store(base, size uint64, mod int) bool {
	// Each round either stores the range, fails, or shrinks one range: the
	// new one (bounded by the entries below it) or the entry above it, which
	// then no longer overlaps. So the loop ends after at most 2n+1 rounds.
	for {
		if size == 0 || base+(size-1) < base {
			return false // empty or wrapping range
		}
		high := base + size - 1
		ib, ih := m.lowerBound(base), m.lowerBound(high)
		if ib != ih {
			// An existing range ends inside the new one.
			if !m.truncateUpper {
				return false
			}
			cut := m.entries[ib].high - base + 1
			base += cut
			size -= cut
			continue
		}
		if ih < len(m.entries) && m.entries[ih].base <= high {
			// The range above starts inside the new one.
			if m.truncateUpper && m.entries[ih].high > high {
				m.entries[ih].base = high + 1
				continue
			}
			return false
		}
		m.entries = append(m.entries, rangeEntry{})
		copy(m.entries[ih+1:], m.entries[ih:])
		m.entries[ih] = rangeEntry{base: base, high: high, mod: mod}
		return true
	}
}
