package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// tunerAtDefaultGOGC returns a tuner made without GOGC in the
// environment and at GOGC 100, both put back after the test.
func tunerAtDefaultGOGC(t *testing.T) *gcTuner {
	t.Setenv("GOGC", "") // restored after the test
	os.Unsetenv("GOGC")
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	return newGCTuner()
}

// The tuner raises GOGC for a small live heap (a test binary's few MB:
// the maximum), never above gcMaxPercent, and puts the old value back;
// with GOGC set by the user it does nothing.
func TestGCTuner(t *testing.T) {
	g := tunerAtDefaultGOGC(t)
	for range gcTuneEvery {
		g.done()
	}
	if p := debug.SetGCPercent(-1); p < gcUsualPercent || p > gcMaxPercent || p != g.percent {
		t.Errorf("GOGC %d after tuning (tuner: %d), want %d to %d", p, g.percent, gcUsualPercent, gcMaxPercent)
	} else {
		debug.SetGCPercent(p)
	}
	g.restore()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC %d after restore, want 100", p)
	}

	t.Setenv("GOGC", "100")
	g = newGCTuner()
	for range gcTuneEvery {
		g.done()
	}
	if g.percent != 0 {
		t.Errorf("GOGC set by the user, tuner set %d", g.percent)
	}
}

// The run starts at gcMaxPercent. The tuner reads the heap at the first
// dump done after the first collection, then again only once a
// collection has ended since its last reading, at a gcTuneEvery point:
// the watcher marks each cycle's end, and a reading takes the mark.
func TestGCTunerReadsOncePerCycle(t *testing.T) {
	g := tunerAtDefaultGOGC(t)
	defer g.restore()
	if p := debug.SetGCPercent(-1); p != gcMaxPercent || g.percent != gcMaxPercent {
		t.Fatalf("GOGC %d at the start (tuner: %d), want %d", p, g.percent, gcMaxPercent)
	} else {
		debug.SetGCPercent(p)
	}
	waitCycle := func() {
		t.Helper()
		runtime.GC()
		deadline := time.Now().Add(10 * time.Second)
		for !g.cycled.Load() {
			if time.Now().After(deadline) {
				t.Fatal("no cycle mark 10 s after a collection")
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitCycle()
	g.done() // the first reading: at once
	if g.cycled.Load() || !g.read.Load() {
		t.Fatalf("after the first collection and one dump: cycle mark %v, read %v; want a reading that took the mark", g.cycled.Load(), g.read.Load())
	}
	waitCycle()
	for range gcTuneEvery - 2 {
		g.done()
	}
	if !g.cycled.Load() {
		t.Error("a reading between gcTuneEvery points took the mark")
	}
	g.done() // dump gcTuneEvery: a tuning point
	if g.cycled.Load() {
		t.Error("the mark is still set after the next tuning point")
	}
}
