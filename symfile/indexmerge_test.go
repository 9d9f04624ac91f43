package symfile

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMergeChunkRuns checks the merge of the chunks' sorted runs against
// a sort of all their entries: runs that do not overlap, that interleave
// entry by entry, that nest, empty ones, and equal addresses (ordered by
// offset).
func TestMergeChunkRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	for trial := range 300 {
		nChunks := 1 + rng.IntN(12)
		spread := uint64(1 + rng.IntN(1000))
		var chunks []*chunkIndex
		var all []rangeEntry
		off := uint64(0)
		for range nChunks {
			c := &chunkIndex{}
			base := rng.Uint64N(spread * 4)
			for range rng.IntN(200) {
				off++
				a := base + rng.Uint64N(spread)
				c.cfi = append(c.cfi, rangeEntry{a, a + 1, off})
			}
			slices.SortFunc(c.cfi, byAddr[rangeEntry])
			all = append(all, c.cfi...)
			chunks = append(chunks, c)
		}
		slices.SortFunc(all, byAddr[rangeEntry])
		got := mergeChunkRuns(chunks, func(c *chunkIndex) []rangeEntry { return c.cfi }, byAddr[rangeEntry])
		if !slices.Equal(got, all) && !(len(got) == 0 && len(all) == 0) {
			t.Fatalf("trial %d: %d chunks: merge differs from a sort (%d and %d entries)", trial, nChunks, len(got), len(all))
		}
	}
}

// TestGallop checks gallop against a linear count at every length and cut.
func TestGallop(t *testing.T) {
	for n := 1; n < 70; n++ {
		a := make([]int, n)
		for i := range a {
			a[i] = 2 * i
		}
		for v := 1; v <= 2*n+1; v += 2 {
			want := min((v+1)/2, n)
			if got := gallop(a, v, func(x, y int) int { return x - y }); got != want {
				t.Fatalf("gallop of %d entries before %d = %d, want %d", n, v, got, want)
			}
		}
	}
}

// TestMergeRunsInPlace sorts one array of sorted runs in place, as the
// sequencer's arenas are: runs already in order, runs that overlap the
// end of what came before, and runs that each span everything before
// (which stop the merge in place, after twice the array's entries moved,
// and are merged into a new array instead). Each result must equal a sort.
func TestMergeRunsInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 2))
	for trial := range 300 {
		var a arena[rangeEntry]
		a.all = make([]rangeEntry, 0, 4096)[:4096]
		var want []rangeEntry
		off := uint64(0)
		base := uint64(0)
		for range 1 + rng.IntN(20) {
			var run []rangeEntry
			switch trial % 3 {
			case 0: // in order
				base += uint64(rng.IntN(50))
			case 1: // overlapping the end of the runs before
				base = max(base, 30) - uint64(rng.IntN(30))
			case 2: // spanning all
				base = 0
			}
			for k := range rng.IntN(150) {
				off++
				addr := base + uint64(k)*uint64(1+rng.IntN(3))
				run = append(run, rangeEntry{addr, addr, off})
			}
			if len(run) > 0 {
				base = run[len(run)-1].base
			}
			slices.SortFunc(run, byAddr[rangeEntry])
			got := a.add(run)
			if !slices.Equal(got, run) {
				t.Fatalf("trial %d: arena copy differs", trial)
			}
			want = append(want, run...)
		}
		slices.SortFunc(want, byAddr[rangeEntry])
		got, ok := a.sorted(byAddr[rangeEntry])
		if !ok || !slices.Equal(got, want) && len(want) > 0 {
			t.Fatalf("trial %d: %d runs: sorted in place (ok %v) differs from a sort", trial, len(a.runs), ok)
		}
	}
}

// TestArenaSpill: records beyond the arena's room go to the heap, and the
// arena reports that merge must use the chunks' arrays.
func TestArenaSpill(t *testing.T) {
	var a arena[pubEntry]
	a.all = make([]pubEntry, 2)
	a.add([]pubEntry{{1, 1}})
	if got := a.add([]pubEntry{{2, 2}, {3, 3}}); len(got) != 2 || got[1] != (pubEntry{3, 3}) {
		t.Fatalf("spilt records %v", got)
	}
	if _, ok := a.sorted(cmpPub); ok {
		t.Error("an arena that spilt reported its records sorted")
	}
}

// TestMergeRunsInPlaceAside: with room set aside (the idle workers'
// arrays, lendScratch), sorting runs that overlap allocates nothing.
func TestMergeRunsInPlaceAside(t *testing.T) {
	runs := [][]rangeEntry{{{10, 10, 1}, {20, 20, 2}, {30, 30, 3}}, {{5, 5, 4}, {25, 25, 5}}, {{1, 1, 6}, {40, 40, 7}}}
	var all []rangeEntry
	bounds := []int{0}
	for _, r := range runs {
		all = append(all, r...)
		bounds = append(bounds, len(all))
	}
	want := slices.SortedFunc(slices.Values(all), cmpRange)
	a := make([]rangeEntry, len(all))
	aside := make([]rangeEntry, 0, len(all))
	allocs := testing.AllocsPerRun(10, func() {
		copy(a, all)
		if k, _ := mergeRunsInPlace(a, bounds, cmpRange, aside); k != len(bounds)-1 {
			t.Fatalf("merged %d of %d runs", k, len(bounds)-1)
		}
	})
	if !slices.Equal(a, want) {
		t.Errorf("sorted %v, want %v", a, want)
	}
	if allocs != 0 {
		t.Errorf("%v allocations with room set aside", allocs)
	}
}
