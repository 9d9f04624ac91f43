package symfile

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveFirstWins is the definition: store in file order, drop a range that
// overlaps any range already stored.
func naiveFirstWins(in []span) []span {
	var kept []span
	for _, s := range in {
		ok := true
		for _, k := range kept {
			if s.base <= k.high && k.base <= s.high {
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, s)
		}
	}
	slices.SortFunc(kept, func(a, b span) int { return cmp.Compare(a.base, b.base) })
	return kept
}

func TestExclusiveFirstWinsMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 2000 {
		n := 1 + r.IntN(60)
		if iter%50 == 0 {
			n = 500 // more than 64 descending steps: the sort path
		}
		in := make([]span, n)
		sorted := iter%3 == 0 // mostly-sorted inputs, like real files
		var addr uint64
		for i := range in {
			var base uint64
			if sorted {
				addr += uint64(r.IntN(40))
				base = addr
			} else {
				base = uint64(r.IntN(400))
			}
			in[i] = span{base, base + uint64(r.IntN(30)), i}
		}
		want := naiveFirstWins(slices.Clone(in))
		got := exclusiveFirstWins(slices.Clone(in))
		if !slices.Equal(got, want) {
			t.Fatalf("input %v:\n got %v\nwant %v", in, got, want)
		}
	}
}

func TestContainedMap(t *testing.T) {
	// Nested STACK WIN-like ranges: the lookup returns innermost first;
	// partial overlaps and (without allowEqual) equal ranges are refused.
	var m containedMap
	for i, r := range [][2]uint64{{0x100, 0x100}, {0x120, 0x10}, {0x180, 0x40}, {0x90, 0x200}, {0x1f0, 0x20}, {0x120, 0x10}} {
		ok := m.store(r[0], r[1], i)
		want := i != 4 && i != 5 // 0x1f0+0x20 crosses 0x200; the last one equals entry 1
		if ok != want {
			t.Errorf("store %d (%#x+%#x) = %v, want %v", i, r[0], r[1], ok, want)
		}
	}
	for _, tc := range []struct {
		addr uint64
		want []int
	}{
		{0x125, []int{1, 0, 3}},
		{0x110, []int{0, 3}},
		{0x1b0, []int{2, 0, 3}},
		{0x95, []int{3}},
		{0x290, nil},
		{0x8f, nil},
	} {
		if got := m.lookup(tc.addr, nil); !slices.Equal(got, tc.want) {
			t.Errorf("lookup(%#x) = %v, want %v", tc.addr, got, tc.want)
		}
	}
	// Inline maps allow equal ranges; the later one nests inside.
	im := containedMap{allowEqual: true}
	im.store(0x10, 0x10, 0)
	im.store(0x10, 0x10, 1)
	if got := im.lookup(0x15, nil); !slices.Equal(got, []int{1, 0}) {
		t.Errorf("equal ranges: lookup = %v, want [1 0]", got)
	}
}

func TestContainedMapNestingBound(t *testing.T) {
	m := containedMap{allowEqual: true}
	stored := 0
	for i := range 1000 {
		if m.store(0x1000, 0x100, i) {
			stored++
		}
	}
	if stored != maxNesting+1 {
		t.Errorf("stored %d equal nested ranges, want %d", stored, maxNesting+1)
	}
	if got := m.lookup(0x1010, nil); len(got) != stored || got[0] != stored-1 || got[len(got)-1] != 0 {
		t.Errorf("lookup: %d entries, innermost %v", len(got), got[:1])
	}
}

// sortByAddr merges sorted runs (in parallel when large, copying the parts
// that do not interleave whole); the result must be the plain sort.
func TestSortByAddrRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		runs, size int
		spread     int64
	}{
		{1, 10, 100}, {2, 5, 10}, {3, 100000, 1 << 40}, {7, 40000, 1 << 20}, {5, 50000, 1 << 62},
		{300, 500, 1 << 30}, {600, 10, 1 << 20}, {2, 200000, 8}, {40, 3000, 1 << 16},
	} {
		var in []rangeEntry
		off := uint64(0)
		for r := range tc.runs {
			run := make([]rangeEntry, tc.size)
			base := uint64(rng.IntN(4)) << 40 * uint64(r%3)
			for i := range run {
				a := base + uint64(rng.Int64N(tc.spread))
				run[i] = rangeEntry{base: a, high: a + 1, off: off}
				off++
			}
			slices.SortFunc(run, byAddr[rangeEntry])
			in = append(in, run...)
		}
		want := slices.Clone(in)
		slices.SortFunc(want, byAddr[rangeEntry])
		sortByAddr(in, byAddr[rangeEntry])
		if !slices.Equal(in, want) {
			t.Errorf("%d runs of %d: sortByAddr differs from a sort", tc.runs, tc.size)
		}
	}
}
