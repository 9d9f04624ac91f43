package main

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// realignedChecked reports whether the golden run args differs from
// Breakpad's output only from the frames our walk recovered through a
// realigned frame's saved stack pointer (walker.RuleRealigned, i386 main:
// GCC's DRAP) or a signal frame (from its trampoline, walker.RuleSignal)
// on, per thread, and past _start. From there Breakpad walks
// junk; processor's TestConformanceFrames (oracleRealigned) and
// TestTestdataAgainstGDB hold our frames to gdb's backtrace of the core.
func realignedChecked(t *testing.T, args []string) bool {
	t.Helper()
	dump, roots := dumpAndRoots(args)
	g, ok := goldenFor(t, args)
	if dump == "" || !ok {
		return false
	}
	d, err := minidump.Open(dump)
	if err != nil {
		return false
	}
	defer d.Close()
	var sup symfile.Supplier
	if len(roots) > 0 {
		sup = symcompress.NewDirSupplier(roots...)
	}
	st, err := processor.Process(d, sup, processor.Options{})
	if err != nil {
		return false
	}
	threads, _ := st.BreakpadThreads()
	cuts := map[int]int{}
	for i, th := range threads {
		for j, f := range th.Frames {
			if f.Rule == walker.RuleRealigned {
				cuts[i] = j
				break
			}
			if j+1 < len(th.Frames) && th.Frames[j+1].Rule == walker.RuleSignal {
				cuts[i] = j // the signal trampoline, looked up at its first byte
				break
			}
		}
	}
	if len(cuts) == 0 {
		return false
	}
	want := readLines(t, g.expected)
	out, _, _ := runGolden(t, g)
	got := dropChangedFrames(splitLines(out), g.machine, cuts)
	for _, w := range [][]string{dropChangedFrames(want, g.machine, cuts), dropChangedFrames(dropPastEntry(want, g.machine), g.machine, cuts)} {
		if firstDiff(w, got) == "" {
			return true
		}
	}
	t.Logf("not excused as a realigned frame's: outside the frames from %v (thread: frame) ours differs from Breakpad's", cuts)
	return false
}
