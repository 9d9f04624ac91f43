package walker_test

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// sliceModuleMap is the earlier, quadratic NewModuleMap (insertion into a
// sorted slice), kept as the reference the B-tree version must match.
func sliceModuleMap(mods []*walker.Module) []*walker.Module {
	var sorted []*walker.Module
	for _, m := range mods {
		if m == nil || m.Size == 0 || m.Base+m.Size-1 < m.Base {
			continue
		}
		end := m.Base + m.Size - 1
		i := sort.Search(len(sorted), func(i int) bool { return sorted[i].Base+sorted[i].Size-1 >= m.Base })
		if i < len(sorted) && sorted[i].Base <= end {
			continue
		}
		sorted = append(sorted, nil)
		copy(sorted[i+1:], sorted[i:])
		sorted[i] = m
	}
	return sorted
}

func TestModuleMapMatchesSliceVersion(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 200 {
		var mods []*walker.Module
		for i := range 80 {
			m := &walker.Module{Index: i, Base: rng.Uint64N(500), Size: rng.Uint64N(40)}
			if rng.IntN(20) == 0 {
				m.Base = ^uint64(0) - rng.Uint64N(30)
			}
			if rng.IntN(30) == 0 {
				m = nil
			}
			mods = append(mods, m)
		}
		mm := walker.NewModuleMap(mods)
		got, want := mm.Sorted(), sliceModuleMap(mods)
		if len(got) != len(want) {
			t.Fatalf("round %d: %d modules stored, want %d", round, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("round %d: module %d is %d, want %d", round, i, got[i].Index, want[i].Index)
			}
		}
		for range 50 {
			a := rng.Uint64N(560)
			var ref *walker.Module
			for _, m := range want {
				if m.Contains(a) {
					ref = m
				}
			}
			if mm.At(a) != ref {
				t.Fatalf("round %d: At(%d) = %v, want %v", round, a, mm.At(a), ref)
			}
		}
	}
}
