package microdump

import "github.com/minidump-stackwalk/minidump-stackwalk/internal/rangeset"

// moduleMap is an address range map with Breakpad's two merge rules for
// modules: exclusive ranges (an overlapping module is refused), or, for
// Android, "truncate upper": of two overlapping modules the one with the
// higher range loses the overlap. The rules are reproduced exactly because
// they decide which module an address belongs to and which modules are listed.
//
// Each store is O(log n): the ranges are kept in a B-tree, and where
// Breakpad's loop walks the new range up past every stored range ending
// inside it, one search finds the last of them.
type moduleMap struct {
	truncateUpper bool
	set           *rangeset.Set[int] // disjoint ranges by high; value: index of the module
}

type rangeEntry struct {
	base, high uint64 // inclusive range
	mod        int    // index of the module
}

// entries returns the stored ranges in address order.
func (m *moduleMap) entries() []rangeEntry {
	if m.set == nil {
		return nil
	}
	es := m.set.Entries()
	out := make([]rangeEntry, len(es))
	for i, e := range es {
		out[i] = rangeEntry{e.Base, e.High, e.Value}
	}
	return out
}

// store adds [base, base+size) for module mod and reports whether it was kept.
func (m *moduleMap) store(base, size uint64, mod int) bool {
	if m.set == nil {
		m.set = rangeset.New[int]()
	}
	if size == 0 || base+(size-1) < base {
		return false // empty or wrapping range
	}
	high := base + size - 1
	// Stored ranges ending inside the new one, below its high: Breakpad
	// moves the new base past each in turn, so past the last of them.
	if below := m.set.Floor(high - 1); high > 0 && below != nil && below.High >= base {
		if !m.truncateUpper {
			return false
		}
		base = below.High + 1
	}
	// The range above, when it starts inside the new one, keeps only its
	// part above the new range (truncate upper), unless it ends first.
	if above := m.set.Ceil(high); above != nil && above.Base <= high {
		if !m.truncateUpper || above.High == high {
			return false
		}
		above.Base = high + 1
	}
	m.set.Insert(&rangeset.Entry[int]{Base: base, High: high, Value: mod})
	return true
}
