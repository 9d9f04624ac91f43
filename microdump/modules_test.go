package microdump

import (
	"fmt"
	"math/rand/v2"
	"slices"
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

// TestDisjointModulesMatchReplay: modules that overlap nowhere are listed
// by a sort rather than by Breakpad's module map; the list must be the
// map's, in ascending, descending and shuffled input order, under both
// rules, and overlapping ones must still go through the map.
func TestDisjointModulesMatchReplay(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		n := 1 + rng.IntN(50)
		mods := make([]Module, n)
		for i := range mods {
			mods[i] = Module{Base: uint64(i) * 0x2000, Size: 0x1000 + rng.Uint64N(0x1001), Name: fmt.Sprint(i)}
		}
		if round%4 == 3 {
			mods[n-1] = Module{Base: ^uint64(0) - 0xfff, Size: 0x1000, Name: "top"} // ends at the top
		}
		switch round % 3 {
		case 1:
			slices.Reverse(mods)
		case 2:
			rng.Shuffle(n, func(i, j int) { mods[i], mods[j] = mods[j], mods[i] })
		}
		upperFrom := -1
		if round%2 == 0 {
			upperFrom = rng.IntN(n + 1)
		}
		ref := &parser{d: &Dump{}, mods: slices.Clone(mods), modLines: make([]int32, n), upperFrom: upperFrom}
		want := ref.replayModules()
		p := &parser{d: &Dump{}, mods: slices.Clone(mods), modLines: make([]int32, n), upperFrom: upperFrom}
		if got := p.storeModules(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d: modules\n%v\nwant\n%v", round, got, want)
		}
		if len(want) != n {
			t.Fatalf("round %d: the map kept %d of %d disjoint modules", round, len(want), n)
		}
	}
	// One overlap: the map's rules decide, and the later module is refused.
	p := &parser{d: &Dump{}, mods: []Module{{Base: 0x1000, Size: 0x2000}, {Base: 0x2000, Size: 0x1000}}, modLines: []int32{3, 4}, upperFrom: -1}
	if got := p.storeModules(); len(got) != 1 || len(p.reported[warnModule]) != 1 {
		t.Errorf("overlapping modules: %v, warnings %v", got, p.reported[warnModule])
	}
}
