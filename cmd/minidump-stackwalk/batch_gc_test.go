package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// The tuner raises GOGC for a small live heap (a test binary's few MB:
// the maximum), never above gcMaxPercent, and puts the old value back;
// with GOGC set by the user it does nothing.
func TestGCTuner(t *testing.T) {
	t.Setenv("GOGC", "") // restored after the test
	os.Unsetenv("GOGC")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	g := newGCTuner()
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
