package oracle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Expected is what a walk of each thread of a testdata dump must equal.
type Expected struct {
	// Frames holds the PCs of each thread's physical frames (gdb's
	// convention: Thumb bit clear, a caller's return address itself),
	// innermost first, by thread id.
	Frames map[uint32][]uint64
	// EntryMayFollow says the list ends with the last frame of libgcc's
	// ARM (EHABI) backtrace, which reports no frame whose function has no
	// unwind entry: _start (EXIDX_CANTUNWIND) may follow it in a walk.
	EntryMayFollow bool
}

// ReadExpected returns the frames of the dump testdata/dumps/NAME.dmp
// from the oracle directory dir (testdata/oracle): gdb's (NAME.frames.txt)
// and, for a case with libgcc's backtrace (NAME.unwind.txt, written by the
// crashing program itself), gdb's frames up to the first one libgcc also
// has, then libgcc's from there on, and past libgcc's last gdb's. The
// program calls the unwinder from a call site the fault's stack shares:
// in the crashing function just before the fault (the signal cases:
// libgcc's frame 1 is gdb's frame 1), or through a function pointer the
// fault's call goes through too (shapesdemo: libgcc's frames 0 and 1 are
// the pointer's first target, gdb's frame 1 or further up is the caller
// both share). Where both have a frame from there on they must agree, or
// tb fails: the two oracles are independent, gdb only stops early where it
// cannot read qemu-user's frames.
func ReadExpected(tb testing.TB, dir, name string) Expected {
	tb.Helper()
	exp := Expected{Frames: physical(ReadGDBFrames(tb, filepath.Join(dir, name+".frames.txt")))}
	path := filepath.Join(dir, name+".unwind.txt")
	if _, err := os.Stat(path); err != nil {
		return exp
	}
	for id, u := range physical(ReadGDBFrames(tb, path)) {
		g, ok := exp.Frames[id]
		if !ok || len(g) == 0 || len(u) < 2 {
			tb.Fatalf("%s: thread %d: gdb's frames %x, libgcc's %x", name, id, g, u)
		}
		gi, ui := sharedFrame(g, u)
		for i := 0; gi+i < len(g) && ui+i < len(u); i++ {
			if g[gi+i] != u[ui+i] {
				tb.Errorf("%s: thread %d frame %d: gdb %#x, libgcc %#x", name, id, gi+i, g[gi+i], u[ui+i])
			}
		}
		want := append(append([]uint64{}, g[:gi]...), u[ui:]...)
		if rest := gi + len(u) - ui; len(g) > rest {
			want = append(want, g[rest:]...)
		} else if strings.HasPrefix(name, "arm-") {
			exp.EntryMayFollow = true
		}
		exp.Frames[id] = want
	}
	return exp
}

// sharedFrame returns where gdb's frames g and libgcc's u first name the
// same caller: the first gdb frame from 1 on whose pc is one of libgcc's
// from 1 on, else 1 and 1 (the signal cases, where gdb may stop at 1).
func sharedFrame(g, u []uint64) (gi, ui int) {
	for gi = 1; gi < len(g); gi++ {
		for ui = 1; ui < len(u); ui++ {
			if g[gi] == u[ui] {
				return gi, ui
			}
		}
	}
	return 1, 1
}

// physical returns each thread's frame PCs but gdb's inline and
// tail-call frames (gdb_frames.py leaves those out already).
func physical(threads []*GDBThread) map[uint32][]uint64 {
	out := map[uint32][]uint64{}
	for _, th := range threads {
		var pcs []uint64
		for _, f := range th.Frames {
			if f.Type != "inline" {
				pcs = append(pcs, f.PC)
			}
		}
		out[th.LWP] = pcs
	}
	return out
}
