package dumptext

import (
	"math/rand"
	"testing"
)

// naiveMap is RangeMap's behaviour written plainly: a list of ranges and
// the same rules, for comparing with the treap.
type naiveMap struct {
	truncateLower bool
	r             []span
}

func (m *naiveMap) find(pred func(span) bool) int {
	best := -1
	for i, s := range m.r {
		if pred(s) && (best < 0 || s.high < m.r[best].high) {
			best = i
		}
	}
	return best
}

func (m *naiveMap) store(base, size uint64, entry int) bool {
	for {
		if size == 0 || base+(size-1) < base {
			return false
		}
		high := base + size - 1
		ib := m.find(func(s span) bool { return s.high >= base })
		ih := m.find(func(s span) bool { return s.high >= high })
		o := -1
		switch {
		case ib != ih:
			o = ib
		case ih >= 0 && m.r[ih].base <= high:
			o = ih
		default:
			m.r = append(m.r, span{high, base, entry})
			return true
		}
		if !m.truncateLower {
			return false
		}
		switch os := m.r[o]; {
		case base < os.base:
			size = os.base - base
		case os.base < base:
			m.r[o].high = base - 1
		default:
			return false
		}
	}
}

func TestRangeMap(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, truncate := range []bool{false, true} {
		for round := 0; round < 200; round++ {
			m, n := rangeMap{truncateLower: truncate}, naiveMap{truncateLower: truncate}
			for i := 0; i < 40; i++ {
				base, size := uint64(rng.Intn(400)), uint64(rng.Intn(60))
				if got, want := m.store(base, size, i), n.store(base, size, i); got != want {
					t.Fatalf("truncate=%v round %d: store(%d, %d) = %v, want %v", truncate, round, base, size, got, want)
				}
				for a := uint64(0); a < 470; a++ {
					e, ok := m.retrieve(a)
					w := n.find(func(s span) bool { return s.high >= a })
					wok := w >= 0 && a >= n.r[w].base
					if ok != wok || ok && e != n.r[w].entry {
						t.Fatalf("truncate=%v round %d: retrieve(%d) = %d,%v, want %v", truncate, round, a, e, ok, wok)
					}
				}
			}
		}
	}
	// A long descending list stays fast.
	var m rangeMap
	for i := 1 << 20; i > 0; i-- {
		if !m.store(uint64(i)*16, 16, i) {
			t.Fatalf("store %d failed", i)
		}
	}
	if m.store(16, 1, 0) {
		t.Fatal("an overlapping range was stored")
	}
}
