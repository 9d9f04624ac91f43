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
// crashing program itself: _Unwind_Backtrace called in the crashing
// function just before the fault), frame 0 from gdb (the fault; libgcc's
// frame 0 is the same function after its call of the unwinder), then
// libgcc's frames 1 on, and past libgcc's last frame gdb's. Where both
// have a frame 1 or later they must agree, or tb fails: the two oracles
// are independent, gdb only stops early where it cannot read qemu-user's
// signal frames.
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
		for i := 1; i < min(len(g), len(u)); i++ {
			if g[i] != u[i] {
				tb.Errorf("%s: thread %d frame %d: gdb %#x, libgcc %#x", name, id, i, g[i], u[i])
			}
		}
		want := append([]uint64{g[0]}, u[1:]...)
		if len(g) > len(u) {
			want = append(want, g[len(u):]...)
		} else if strings.HasPrefix(name, "arm-") {
			exp.EntryMayFollow = true
		}
		exp.Frames[id] = want
	}
	return exp
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
