package rawregs

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

func TestOfKeepsStaleValues(t *testing.T) {
	ctx := minidump.NewContext(minidump.ArchARM)
	ctx.SetIndex(minidump.ARMSP, 0x1000)
	ctx.SetIndex(minidump.ARMPC, 0x2001)
	f := &walker.Frame{Context: ctx}
	r := Of[[16]uint64](f)
	if r[minidump.ARMSP] != 0x1000 || r[minidump.ARMPC] != 0x2001 || r[minidump.ARMLR] != 0 {
		t.Fatalf("raw registers from the context = %#x", *r)
	}
	r[minidump.ARMLR] = 0xdead // stale: not in the context
	if again := Of[[16]uint64](f); again != r || again[minidump.ARMLR] != 0xdead {
		t.Errorf("second Of = %#x, want the same array with the stale LR", *again)
	}
	if _, ok := f.Context.Index(minidump.ARMLR); ok {
		t.Error("writing a raw register changed the context")
	}

	var raw [33]uint64
	raw[minidump.ARM64FP] = 0x42
	g := NewFrame(walker.NewWalker(&walker.Env{}), minidump.NewContext(minidump.ArchARM64), walker.TrustScan, raw)
	if g.Trust != walker.TrustScan || Of[[33]uint64](g)[minidump.ARM64FP] != 0x42 {
		t.Errorf("NewFrame: trust %v, raw x29 %#x", g.Trust, Of[[33]uint64](g)[minidump.ARM64FP])
	}
}
