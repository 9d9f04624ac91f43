package processor

import (
	"math/rand/v2"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// The unloaded modules' finder stores and finds ranges as the walker's
// module map does (the map the walk used before): the same module, by
// index, for every address, over random lists with overlapping, empty and
// wrapping ranges.
func TestUnloadedFinderMatchesModuleMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := 1 + rng.IntN(40)
		list := make([]*Module, n)
		walk := make([]*walker.Module, n)
		for i := range list {
			base, size := uint64(rng.IntN(4096)), uint64(rng.IntN(300))
			if rng.IntN(20) == 0 {
				base = ^uint64(0) - uint64(rng.IntN(100)) // wrapping or at the top
			}
			list[i] = &Module{Index: i, Unloaded: true, Base: base, Size: size, SymbolBase: base}
			walk[i] = &walker.Module{Index: i, Unloaded: true, Base: base, Size: size, SymbolBase: base}
		}
		want, got := walkertest.NewModuleMap(walk), newUnloadedFinder(list)
		probes := []uint64{0, ^uint64(0), ^uint64(0) - 50}
		for range 500 {
			probes = append(probes, uint64(rng.IntN(4500)))
		}
		for _, addr := range probes {
			w, g := want.At(addr), got.At(addr)
			if (w == nil) != (g == nil) || (w != nil && (w.Index != g.Index || !g.Unloaded || g.Base != w.Base || g.Size != w.Size)) {
				t.Fatalf("round %d, address %#x: finder %+v, module map %+v", round, addr, g, w)
			}
			if g != nil && got.At(addr) != g {
				t.Fatalf("round %d, address %#x: a second lookup made another module", round, addr)
			}
		}
	}
}
