package microdump

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
)

// sliceModuleMap is the earlier, quadratic moduleMap: Breakpad's
// RangeMap::StoreRange loop on a sorted slice, kept as the reference the
// B-tree version must match.
type sliceModuleMap struct {
	truncateUpper bool
	entries       []rangeEntry
}

func (m *sliceModuleMap) lowerBound(addr uint64) int {
	return sort.Search(len(m.entries), func(i int) bool { return m.entries[i].high >= addr })
}

func (m *sliceModuleMap) store(base, size uint64, mod int) bool {
	for {
		if size == 0 || base+(size-1) < base {
			return false
		}
		high := base + size - 1
		ib, ih := m.lowerBound(base), m.lowerBound(high)
		if ib != ih {
			if !m.truncateUpper {
				return false
			}
			cut := m.entries[ib].high - base + 1
			base += cut
			size -= cut
			continue
		}
		if ih < len(m.entries) && m.entries[ih].base <= high {
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

// TestModuleMapMatchesSliceVersion stores random, heavily overlapping
// ranges in both versions, under both rules.
func TestModuleMapMatchesSliceVersion(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 300 {
		upper := round%2 == 0
		fast := moduleMap{truncateUpper: upper}
		ref := sliceModuleMap{truncateUpper: upper}
		for i := range 60 {
			base := rng.Uint64N(400)
			size := rng.Uint64N(60)
			if rng.IntN(20) == 0 {
				base = ^uint64(0) - rng.Uint64N(40) // near the top: wrapping ranges
			}
			if got, want := fast.store(base, size, i), ref.store(base, size, i); got != want {
				t.Fatalf("round %d store %d [%d+%d]: kept %v, want %v", round, i, base, size, got, want)
			}
		}
		if got, want := fmt.Sprint(fast.entries()), fmt.Sprint(ref.entries); got != want {
			t.Fatalf("round %d: entries\n%s\nwant\n%s", round, got, want)
		}
	}
}
