package retaddr_test

import (
	"fmt"
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

// TestStaleUnderCaller: on ARM, a scan's first candidate proven only by
// its own CFI, whose CFI step reads the return into its caller F from
// below a higher word returning into F at another call site, lay in the
// frame of F's earlier callee (a variadic one here, its return address
// under its pushed argument registers): the higher word, the live return
// into F, is taken. When the higher word is the very return the CFI read
// (a callee that pushed lr at its top), or returns into another function,
// the CFI-proven candidate stays. Without code, as client dumps are.
func TestStaleUnderCaller(t *testing.T) {
	ac := archCases[0]
	const outerOff = 0x5000
	ac.syms = "MODULE Linux arm ID1 module1\n" + fmt.Sprintf(
		"PUBLIC %x 0 callee\nFUNC %x 100 0 stale\nFUNC %x 100 0 caller\nFUNC %x 100 0 outer\nPUBLIC %x 0 other\n"+
			// stale: push {r1-r3}; push {lr}: its return 16 below its CFA.
			"STACK CFI INIT %x 100 .cfa: sp 16 + .ra: .cfa -16 + ^\n"+
			"STACK CFI INIT %x 100 .cfa: sp 8 + .ra: .cfa -4 + ^\n",
		calleeOff+1, staleOff, callerOff, outerOff, otherOff+1, staleOff, callerOff)
	ra := func(off uint64) uint64 { return mod + off + 1 }
	earlier, later := ra(callerOff+0x20), ra(callerOff+0x40)
	for _, tc := range []struct {
		name   string
		top    uint64 // the word under the caller's frame (S-4)
		caller uint64 // frame 1's PC
	}{
		{"a later return into the caller above", later, later},
		{"the return the CFI read", earlier, ra(staleOff + 0x10)},
		{"a return into another function", ra(otherOff + 0x10), ra(staleOff + 0x10)},
	} {
		// sp: the stale return into "stale"; stale's frame [sp+4, sp+20)
		// holds its return into the caller at sp+4 and top at sp+16; the
		// caller's frame [sp+20, sp+28) its return into outer.
		pcs := ac.walk(t, nil, ra(staleOff+0x10), earlier, 0, 0, tc.top, 0, ra(outerOff+0x10))
		if len(pcs) < 2 || pcs[1] != tc.caller {
			t.Errorf("%s: frames %x, want caller %#x", tc.name, pcs, tc.caller)
		}
	}
}
