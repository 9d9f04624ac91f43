package walker_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
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
		mm := walkertest.NewModuleMap(mods)
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

func descendingModules(n int) []*walker.Module {
	mods := make([]*walker.Module, n)
	for i := range mods {
		mods[i] = &walker.Module{Index: i, Base: uint64(n-i) * 0x10000, Size: 0x10000}
	}
	return mods
}

// TestManyUnloadedModulesDescending: 100k modules in descending order are
// all stored, ascending.
func TestManyUnloadedModulesDescending(t *testing.T) {
	const n = 100_000
	mm := walkertest.NewModuleMap(descendingModules(n))
	s := mm.Sorted()
	if len(s) != n || s[0].Index != n-1 || s[n-1].Index != 0 {
		t.Fatalf("%d modules stored", len(s))
	}
	if m := mm.At(0x10000 * 5); m == nil || m.Index != n-5 {
		t.Errorf("At: %v", m)
	}
}

// BenchmarkNewModuleMapDescending compares the B-tree map with the earlier
// sorted slice on n modules in descending order (docs/limits.md).
func BenchmarkNewModuleMapDescending(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		mods := descendingModules(n)
		b.Run(fmt.Sprintf("btree/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				walkertest.NewModuleMap(mods)
			}
		})
		b.Run(fmt.Sprintf("slice/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				sliceModuleMap(mods)
			}
		})
	}
}
