package amd64_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/amd64"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// TestRealignedFrame: frame 0 is a leaf under a function that realigned
// its stack through r10 (GCC's DRAP, as realign_inner in testdata's
// amd64-realign): its CFI says `.cfa: $r10`, unknown in frame 1. The
// record at rbp holds the copy of the return address; below it, past a
// pushed r12, the saved r10 (the caller's rsp), with the original return
// address right below that. The caller gets that rsp, the record's rbp and
// rule realigned_frame; its own CFI then finds the next caller. Without
// the original below the saved word, or in Breakpad mode, no frame is
// realigned. Without realigned's CFI rows the same evidence decides.
func TestRealignedFrame(t *testing.T) {
	const (
		leafRA  = mod1Base + 0x2040 // in realigned, after its call of leaf
		outerRA = mod1Base + 0x3040 // in outer
		rbp     = codeStack + 0x80  // realigned's record (aligned down)
		cfa     = codeStack + 0x100 // realigned's caller's rsp
		callerR = codeStack + 0x200 // outer's rbp
	)
	syms := "MODULE Linux x86_64 ID1 module1\n" +
		"FUNC 1000 100 0 leaf\nFUNC 2000 100 0 realigned\nFUNC 3000 100 0 outer\nFUNC 4000 100 0 top\n" +
		"STACK CFI INIT 1000 100 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n" +
		"STACK CFI INIT 2000 100 .cfa: $rsp 8 + .ra: .cfa -8 + ^\nSTACK CFI 2005 .cfa: $r10 0 +\n" +
		"STACK CFI INIT 3000 100 .cfa: $rsp 16 + .ra: .cfa -8 + ^\n"
	noRows := strings.Replace(syms, "STACK CFI INIT 2000 100 .cfa: $rsp 8 + .ra: .cfa -8 + ^\nSTACK CFI 2005 .cfa: $r10 0 +\n", "", 1)
	walkWith := func(syms string, original uint64, mode walker.Mode) []*walker.Frame {
		data := make([]byte, 0x400)
		put := func(at, v uint64) { binary.LittleEndian.PutUint64(data[at-codeStack:], v) }
		put(codeStack, leafRA)      // leaf's return address
		put(rbp-16, cfa)            // saved r10
		put(rbp-8, 0x5555)          // pushed r12
		put(rbp, callerR)           // the record: saved rbp
		put(rbp+8, outerRA)         // and the copy of the return address
		put(cfa-8, original)        // the original return address
		put(cfa+8, mod1Base+0x4040) // outer's return address (CFA rsp+16)
		ctx := minidump.NewContext(minidump.ArchAMD64)
		ctx.SetIndex(minidump.AMD64RIP, mod1Base+0x1010)
		ctx.SetIndex(minidump.AMD64RSP, codeStack)
		ctx.SetIndex(minidump.AMD64RBP, rbp)
		env := &walker.Env{
			OS: "linux", Memory: &walkertest.Memory{Base: codeStack, Data: data}, Mode: mode,
			Modules: walkertest.NewModuleMap(modules()),
			Symbols: walkertest.NewSymbols(t, map[string]string{"module1": syms}),
		}
		return walker.Walk(env, amd64.New(), ctx).Frames
	}
	walk := func(original uint64, mode walker.Mode) []*walker.Frame { return walkWith(syms, original, mode) }
	// With realigned's rows (CFA $r10) and without them.
	for _, s := range []string{syms, noRows} {
		fs := walkWith(s, outerRA, walker.Extended)
		if len(fs) < 4 {
			t.Fatalf("%d frames, want leaf, realigned, outer, top", len(fs))
		}
		f := fs[2]
		sp, _ := f.Context.SP()
		fp, _ := f.Context.Index(minidump.AMD64RBP)
		if f.Function != "outer" || f.Rule != walker.RuleRealigned || sp != cfa || fp != callerR {
			t.Errorf("frame 2: %q rule %v rsp %#x rbp %#x, want outer, realigned_frame, rsp %#x rbp %#x", f.Function, f.Rule, sp, fp, uint64(cfa), uint64(callerR))
		}
		if fs[3].Function != "top" || fs[3].Rule != walker.RuleCFI {
			t.Errorf("frame 3: %q rule %v, want top by outer's CFI", fs[3].Function, fs[3].Rule)
		}
	}
	for _, tc := range []struct {
		name     string
		original uint64
		mode     walker.Mode
	}{{"no original below the saved word", 0x1234, walker.Extended}, {"Breakpad mode", outerRA, walker.Breakpad}} {
		for _, f := range walk(tc.original, tc.mode) {
			if f.Rule == walker.RuleRealigned {
				t.Errorf("%s: frame %q realigned", tc.name, f.Function)
			}
		}
	}
}
