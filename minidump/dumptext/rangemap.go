package dumptext

import "sort"

// rangeMap is Breakpad's RangeMap<uint64, int> as the dump reader uses it:
// ranges keyed by their last address; a new range overlapping a stored one is
// refused, or, with truncateLower (Linux and Android module lists), the lower
// of the two is shortened.
type rangeMap struct {
	truncateLower bool
	r             []span // sorted by high
}

type span struct {
	high, base uint64
	entry      int
}

// lowerBound is the index of the first range whose high is >= a.
func (m *rangeMap) lowerBound(a uint64) int {
	return sort.Search(len(m.r), func(i int) bool { return m.r[i].high >= a })
}

func (m *rangeMap) insert(s span) {
	i := m.lowerBound(s.high)
	m.r = append(m.r, span{})
	copy(m.r[i+1:], m.r[i:])
	m.r[i] = s
}

func (m *rangeMap) store(base, size uint64, entry int) bool {
	// The recursion of Breakpad's StoreRangeInternal, as a loop.
	for {
		if size == 0 || base+(size-1) < base {
			return false
		}
		high := base + size - 1
		ib, ih := m.lowerBound(base), m.lowerBound(high)
		var other int
		switch {
		case ib != ih:
			other = ib
		case ih != len(m.r) && m.r[ih].base <= high:
			other = ih
		default:
			m.insert(span{high, base, entry})
			return true
		}
		if !m.truncateLower {
			return false
		}
		o := m.r[other]
		switch {
		case base < o.base:
			size = o.base - base
		case o.base < base:
			m.r = append(m.r[:other], m.r[other+1:]...)
			m.insert(span{base - 1, o.base, o.entry})
		default:
			return false
		}
	}
}

// retrieve returns the entry of the range holding a.
func (m *rangeMap) retrieve(a uint64) (int, bool) {
	i := m.lowerBound(a)
	if i == len(m.r) || a < m.r[i].base {
		return 0, false
	}
	return m.r[i].entry, true
}
