package minidump

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// sliceRangeMap is the earlier, quadratic rangeMap (Breakpad's
// RangeMap::StoreRangeInternal on a sorted slice), kept as the reference
// the B-tree version must match.
type sliceRangeMap struct {
	entries       [][3]uint64 // base, high, index
	truncateLower bool
}

func (r *sliceRangeMap) lowerBound(addr uint64) int {
	i, _ := slices.BinarySearchFunc(r.entries, addr, func(e [3]uint64, a uint64) int {
		if e[1] < a {
			return -1
		}
		return 1
	})
	return i
}

func (r *sliceRangeMap) store(base, size uint64, index int) bool {
	for {
		if size == 0 || base+size-1 < base {
			return false
		}
		high := base + size - 1
		ib, ih := r.lowerBound(base), r.lowerBound(high)
		var other int
		switch {
		case ib != ih:
			other = ib
		case ih < len(r.entries) && r.entries[ih][0] <= high:
			other = ih
		default:
			r.entries = slices.Insert(r.entries, ih, [3]uint64{base, high, uint64(index)})
			return true
		}
		if !r.truncateLower {
			return false
		}
		ob := r.entries[other][0]
		switch {
		case base < ob:
			size = ob - base
		case ob < base:
			e := r.entries[other]
			r.entries = slices.Delete(r.entries, other, other+1)
			e[1] = base - 1
			r.entries = slices.Insert(r.entries, r.lowerBound(e[1]), e)
		default:
			return false
		}
	}
}

// TestRangeMapMatchesSliceVersion stores random, heavily overlapping ranges
// in both versions, with and without truncation.
func TestRangeMapMatchesSliceVersion(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 300 {
		lower := round%2 == 0
		fast := newRangeMap(lower)
		ref := sliceRangeMap{truncateLower: lower}
		for i := range 60 {
			base, size := rng.Uint64N(400), rng.Uint64N(60)
			if rng.IntN(20) == 0 {
				base = ^uint64(0) - rng.Uint64N(40)
			}
			if got, want := fast.store(base, size, i), ref.store(base, size, i); got != want {
				t.Fatalf("round %d store %d [%d+%d]: kept %v, want %v", round, i, base, size, got, want)
			}
			a := rng.Uint64N(460)
			gi, gok := fast.lookup(a)
			k := ref.lowerBound(a)
			wok := k < len(ref.entries) && ref.entries[k][0] <= a
			if gok != wok || (gok && uint64(gi) != ref.entries[k][2]) {
				t.Fatalf("round %d: lookup(%d) = %d %v, want %v", round, a, gi, gok, wok)
			}
		}
		var got [][3]uint64
		for _, e := range fast.set.Entries() {
			got = append(got, [3]uint64{e.Base, e.High, uint64(e.Value)})
		}
		if fmt.Sprint(got) != fmt.Sprint(ref.entries) {
			t.Fatalf("round %d: entries\n%v\nwant\n%v", round, got, ref.entries)
		}
	}
}

// BenchmarkRangeMapDescending compares the B-tree map with the earlier
// sorted slice on n ranges stored in descending order (docs/limits.md).
func BenchmarkRangeMapDescending(b *testing.B) {
	for _, n := range []int{10_000, 80_000} {
		b.Run(fmt.Sprintf("btree/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				m := newRangeMap(true)
				for i := range n {
					m.store(uint64(n-i)*0x10000, 0x10000, i)
				}
			}
		})
		b.Run(fmt.Sprintf("slice/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				m := sliceRangeMap{truncateLower: true}
				for i := range n {
					m.store(uint64(n-i)*0x10000, 0x10000, i)
				}
			}
		})
	}
}
