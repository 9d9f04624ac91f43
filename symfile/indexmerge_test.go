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
