package retaddr

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// StartFrame looks above start, up to beyondBytes, for the return
// address into the program's entry function (Candidate.EntryReturn, E)
// and, where the program ran without an interpreter
// (walker.Env.NoInterpreter), for the word below it that the frame of
// the function the entry calls (libc's start function, S) leaves: the
// highest word under E that passes Breakpad's test, the symbols' and its
// own CFI's checks (X, below). It returns that word (below true) or else
// E itself; ok is false without an E or without the entry point.
//
// The evidence for X: nothing ran on the main thread's stack below its
// initial stack pointer before the entry function (no interpreter), so
// S's frame, from E down to S's stack pointer, holds only S's saved
// registers and locals, which point at no code after a call (main's
// address is a function's first byte), and no stale return address. The
// first candidate under E is then below S's frame: the return address
// that S's callee pushed at the top of its own frame, as ARM code does
// (`push {..., lr}`). It does not hold where the return address lies at
// the bottom of a frame (arm64's `stp x29, x30, [sp, #-N]!`), nor with an
// interpreter, whose frames used that stack first.
func StartFrame(w *walker.Walker, callee *walker.Frame, start uint64, a Arch) (loc, ra uint64, below, ok bool) {
	set := isaOf(callee.Context.Arch).desc()
	size, mask := uint64(a.WordSize), set.mask()
	e := w.Env.EntryPoint &^ set.thumbBit & mask
	if e == 0 {
		return 0, 0, false, false
	}
	entry := uint64(0)
	for l := start; l < start+beyondBytes && l >= start; l += size {
		v, ok := w.ReadWord(l, a.WordSize)
		if !ok {
			break
		}
		// Only a value just past the entry point can return into its
		// function: the lookups run for those alone.
		if off := v&^set.thumbBit&mask - e; off == 0 || off > MaxPublicOffset {
			continue
		}
		c := NewCandidate(w, callee, a, mask, l, v)
		if c.InFunction() && c.EntryReturn() {
			entry, ra = l, c.RA
			break
		}
	}
	if entry == 0 {
		return 0, 0, false, false
	}
	if !w.Env.NoInterpreter {
		return entry, ra, false, true
	}
	for l := entry - size; l >= start && l < entry; l -= size {
		v, ok := w.ReadWord(l, a.WordSize)
		if !ok {
			break
		}
		c := NewCandidate(w, callee, a, mask, l, v)
		if !c.InFunction() {
			continue
		}
		if ok, _ := decide(c, CheckSymbols|CheckCFI); ok {
			return l, c.RA, true, true
		}
	}
	return entry, ra, false, true
}
