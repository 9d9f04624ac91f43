package walker_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// chainArch makes depth callers, each its callee's SP plus 16 and IP
// minus 0x10, with a stale register left from the callee's frame value
// (a frame reused from a pool must not show it), through NewFrame.
type chainArch struct{ depth int }

func (a chainArch) Caller(w *walker.Walker, _ bool) *walker.Frame {
	last := w.Last()
	if len(w.Frames()) > a.depth {
		return nil
	}
	ip, _ := last.Context.IP()
	sp, _ := last.Context.SP()
	ctx := minidump.NewContext(minidump.ArchAMD64)
	ctx.SetIP(ip - 0x10)
	ctx.SetSP(sp + 16)
	if len(w.Frames())%2 == 0 {
		ctx.SetIndex(minidump.AMD64RBX, sp)
	}
	return w.NewFrame(walker.Frame{Instruction: ip - 0x11, Context: ctx, Trust: walker.TrustCFI, ArchState: len(w.Frames())})
}

// TestWalksMatchWalk: walks of stacks 1 to 1,100 frames deep (past a
// slab of the frame pool, and past the frames it keeps), in an order that makes each reuse frames of a
// deeper or shallower walk before it, give with one Walks the frames
// Walk gives, and Walk's stacks are not changed by the Walks' later walks.
func TestWalksMatchWalk(t *testing.T) {
	var walks walker.Walks
	var kept []*walker.Stack
	for i, depth := range []int{3, 100, 1, 40, 33, 0, 64, 1100, 2, 100} {
		ctx := minidump.NewContext(minidump.ArchAMD64)
		ctx.SetIP(0x7f0000100000 + uint64(i)<<12)
		ctx.SetSP(0x7ffd00001000 + uint64(i)<<8)
		env := &walker.Env{Memory: emptyMemory{}, MaxFrames: 2000}
		want := walker.Walk(env, chainArch{depth}, ctx)
		reuse := *env
		reuse.Walks = &walks
		got := walker.Walk(&reuse, chainArch{depth}, ctx)
		if len(got.Frames) != depth+1 || len(want.Frames) != depth+1 {
			t.Fatalf("depth %d: %d frames from Walks, %d from Walk", depth, len(got.Frames), len(want.Frames))
		}
		for k := range want.Frames {
			if diff := cmp.Diff(*want.Frames[k], *got.Frames[k], cmp.AllowUnexported(minidump.Context{})); diff != "" {
				t.Fatalf("depth %d frame %d: Walks differs from Walk (-Walk +Walks):\n%s", depth, k, diff)
			}
		}
		kept = append(kept, want)
	}
	for i, st := range kept {
		for k, f := range st.Frames {
			if f.ArchState != nil && f.ArchState.(int) != k {
				t.Errorf("walk %d frame %d changed: ArchState %v", i, k, f.ArchState)
			}
		}
	}
}

type emptyMemory struct{}

func (emptyMemory) ReadMemory(uint64, []byte) error { return errors.New("no memory") }
