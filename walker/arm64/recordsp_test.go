package arm64_test

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// TestRecordSPCorrected: frame 1 comes from the record at frame 0's x29,
// with the sp just above it (a lower bound); b_func keeps its own record
// at the bottom of a 16-byte frame (.cfa: sp 16 +, x29 saved at .cfa -16)
// and frame 1's x29, restored from the record, puts that record 0x20
// bytes higher. Its CFI runs from the sp x29 shows, not from the bound,
// where it would read a junk return address (d_func's, at bound + 8).
// Breakpad's mode keeps the bound.
func TestRecordSPCorrected(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x200).set(minidump.ARM64SP, stack).
		set(minidump.ARM64FP, stack+0x10)
	f.syms = map[string]string{"module2": sym2 + "STACK CFI INIT 2000 100 .cfa: sp 16 + .ra: .cfa -8 + ^ x29: .cfa -16 + ^\n"}
	f.words[stack+0x10] = stack + 0x40 // record at frame 0's x29: b_func's x29
	f.words[stack+0x18] = mod2 + 0x2044
	f.words[stack+0x28] = mod2 + 0x2144 // junk: bound + 8
	f.words[stack+0x40] = 0             // b_func's record
	f.words[stack+0x48] = mod1 + 0x300
	st := f.walk(t, false)
	check(t, "extended", st,
		want{mod1 + 0x200, stack, walker.TrustContext},
		want{mod2 + 0x2044, stack + 0x20, walker.TrustFramePointer},
		want{mod1 + 0x300, stack + 0x50, walker.TrustCFI})
	if bp := f.walk(t, true); len(bp.Frames) > 2 {
		if pc, _ := bp.Frames[2].Context.Index(minidump.ARM64PC); pc == mod1+0x300 {
			t.Errorf("Breakpad mode corrected the record's sp")
		}
	}
	// x29 below the bound: no correction, the junk is read.
	f.words[stack+0x10] = stack + 0x8
	st = f.walk(t, false)
	if len(st.Frames) > 2 {
		if pc, _ := st.Frames[2].Context.Index(minidump.ARM64PC); pc == mod1+0x300 {
			t.Errorf("corrected from an x29 below the record")
		}
	}
}
