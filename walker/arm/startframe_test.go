package arm_test

import (
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// symStart is a static program's start: _start calls start_main (libc's
// start function), which calls call_main, which calls main (a FUNC
// from DWARF); none has CFI or line records.
const symStart = "MODULE Linux arm ID2 module2\nPUBLIC 1001 0 _start\nPUBLIC 1101 0 start_main\n" +
	"PUBLIC 1201 0 call_main\nPUBLIC 1301 0 stale_fn\nFUNC 1400 20 0 main\nPUBLIC 3000 0 _fini\n"

// TestStartFrame: walker/arm byStartFrame. The frame at call_main (no
// CFI) keeps main's address, a function's first byte the symbols refuse,
// and above it a stale return into stale_fn, unproven after the refused
// word; start_main's return address and then the return into _start lie
// above. The return into the entry function is proven (nothing else
// returns there); where the program ran without an interpreter the word
// below it that start_main's frame leaves is call_main's return address;
// with an interpreter only the entry's return is taken; without the entry
// point, or in Breakpad's mode, neither. The words may lie past the scan
// window.
func TestStartFrame(t *testing.T) {
	for _, base := range []uint64{0x20, 0x3e0} { // in the scan window, past it
		f := newFixture().set(minidump.ARMPC, mod2+0x1220).set(minidump.ARMSP, stack)
		f.stackSize = 0x800
		f.syms = map[string]string{"module2": symStart}
		f.words[stack+4] = mod2 + 0x1401         // main: a function's first byte
		f.words[stack+0x10] = mod2 + 0x1321      // stale return into stale_fn
		f.words[stack+base] = mod2 + 0x1121      // into start_main
		f.words[stack+base+8] = mod2 + 0x1401    // main again, in start_main's frame
		f.words[stack+base+0x14] = mod2 + 0x1031 // into _start
		ctx := want{mod2 + 0x1220, stack, walker.TrustContext}
		x := want{mod2 + 0x1121, stack + base + 4, walker.TrustScan}
		e := want{mod2 + 0x1031, stack + base + 0x18, walker.TrustScan}

		check(t, "no entry point", f.walk(t, false), ctx)
		f.entry = mod2 + 0x1001
		check(t, "with an interpreter", f.walk(t, false), ctx, e)
		f.noInterp, f.trace = true, true
		st := f.walk(t, false)
		check(t, "without an interpreter", st, ctx, x, e)
		for i, fr := range st.Frames[1:] {
			if fr.Rule != walker.RuleScanEntry {
				t.Errorf("base %#x: frame %d by %v, want %v", base, i+1, fr.Rule, walker.RuleScanEntry)
			}
		}
		if len(st.Frames) > 1 {
			if note := st.Frames[1].Steps[len(st.Frames[1].Steps)-1].Note; !strings.Contains(note, "without an interpreter") {
				t.Errorf("base %#x: trace of frame 1: %q", base, note)
			}
		}
		for _, fr := range f.walk(t, true).Frames {
			if fr.Rule == walker.RuleScanEntry {
				t.Errorf("base %#x: Breakpad's mode took %#x by %v", base, fr.Instruction, fr.Rule)
			}
		}
	}
}

// TestThreadStartReturn: a thread's start_thread (no CFI) keeps a data
// word past _fini, which the symbols refuse, below its return into
// __clone: that word is proven (clone's child path makes the thread's
// one call, which does not return) and named scan_entry; the same word
// into a function of another name is unproven after the refusal.
func TestThreadStartReturn(t *testing.T) {
	for _, name := range []string{"__clone", "not_clone"} {
		f := newFixture().set(minidump.ARMPC, mod2+0x1220).set(minidump.ARMSP, stack)
		f.syms = map[string]string{"module2": "MODULE Linux arm ID2 module2\nPUBLIC 1001 0 " + name +
			"\nPUBLIC 1201 0 start_thread\nPUBLIC 3000 0 _fini\n"}
		f.words[stack+8] = mod2 + 0x23001 // 0x20000 past _fini: data
		f.words[stack+0x20] = mod2 + 0x1041
		st := f.walk(t, false)
		ctx := want{mod2 + 0x1220, stack, walker.TrustContext}
		if name != "__clone" {
			check(t, name, st, ctx)
			continue
		}
		check(t, name, st, ctx, want{mod2 + 0x1041, stack + 0x24, walker.TrustScan})
		if len(st.Frames) > 1 && st.Frames[1].Rule != walker.RuleScanEntry {
			t.Errorf("frame 1 by %v, want %v", st.Frames[1].Rule, walker.RuleScanEntry)
		}
	}
}
