package retaddr_test

import (
	"testing"
)

// TestScanProof: retaddr.CheckProof. Without code an unproven candidate
// is taken only as the first candidate of its window (the word Breakpad's
// scan takes too); after a refused word (here a function's first byte) it
// is not, and the walk stops rather than guess; the dump's code showing a
// call before it proves it. Of two unproven words returning into the same
// function (not the callee's), the higher is taken: a return address into
// a function lies below that function's frame, so the lower one lies in
// the callee's frame, a stale word of an earlier call.
func TestScanProof(t *testing.T) {
	for _, ac := range archCases {
		t.Run(ac.name, func(t *testing.T) {
			a, b, c, d := ac.cands()
			code := codeMemory(a, b, c, d)
			ra := func(x codeAt) uint64 { return mod + x.off + ac.thumb }
			firstByte := mod + staleOff + ac.thumb // stale's start: a function pointer
			for _, tc := range []struct {
				name   string
				code   bool
				stack  []uint64
				caller uint64 // frame 1's PC; 0: the walk stops at frame 0
			}{
				{"first candidate unproven", false, []uint64{ra(a), ra(c)}, ra(a)},
				{"unproven after a refused word", false, []uint64{firstByte, ra(a)}, 0},
				{"proven by its call site after a refused word", true, []uint64{firstByte, ra(c)}, ra(c)},
				{"same function above", false, []uint64{ra(b), ra(d)}, ra(d)},
				{"another function above", false, []uint64{ra(a), ra(d)}, ra(a)},
			} {
				var mem = code
				if !tc.code {
					mem = nil
				}
				pcs := ac.walk(t, mem, tc.stack...)
				switch {
				case tc.caller == 0 && len(pcs) != 1:
					t.Errorf("%s: frames %x, want the context frame only", tc.name, pcs)
				case tc.caller != 0 && (len(pcs) < 2 || pcs[1] != tc.caller):
					t.Errorf("%s: frames %x, want caller %#x", tc.name, pcs, tc.caller)
				}
			}
		})
	}
}
