package rangeset

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAgainstSortedSlice checks Ceil, Floor, Insert and Remove against a
// sorted slice on random operations.
func TestAgainstSortedSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := New[int]()
	var ref []uint64 // sorted highs
	for i := range 5000 {
		h := rng.Uint64N(2000)
		j, found := slices.BinarySearch(ref, h)
		if rng.IntN(3) == 0 {
			if found {
				ref = slices.Delete(ref, j, j+1)
			}
			s.Remove(&Entry[int]{High: h})
		} else {
			if !found {
				ref = slices.Insert(ref, j, h)
			}
			s.Insert(&Entry[int]{Base: h, High: h, Value: i})
		}
		q := rng.Uint64N(2100)
		k, _ := slices.BinarySearch(ref, q)
		c := s.Ceil(q)
		if (k < len(ref)) != (c != nil) || (c != nil && c.High != ref[k]) {
			t.Fatalf("step %d: Ceil(%d) = %v, want index %d of %v", i, q, c, k, len(ref))
		}
		k2, ok := slices.BinarySearch(ref, q)
		if !ok {
			k2--
		}
		f := s.Floor(q)
		if (k2 >= 0) != (f != nil) || (f != nil && f.High != ref[k2]) {
			t.Fatalf("step %d: Floor(%d) = %v, want index %d", i, q, f, k2)
		}
	}
	got := s.Entries()
	if len(got) != len(ref) || s.Len() != len(ref) {
		t.Fatalf("%d entries, want %d", len(got), len(ref))
	}
	for i, e := range got {
		if e.High != ref[i] {
			t.Fatalf("entry %d: %d, want %d", i, e.High, ref[i])
		}
	}
}
