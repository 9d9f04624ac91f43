package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// gcTuner sets a batch's GOGC from its live heap, so that the heap grows
// about gcHeadroom between collections rather than Go's 100% of what is
// live. A warm batch keeps 3 to 5 MB live and allocates about 250 KB a
// dump: at GOGC 100 it collected every 15 dumps or so and marking took an
// eighth of its CPU (issue 29). With much live (parsed symbols, up to
// --symbol-cache-bytes) it stays at 100, so the peak is that of Go's
// default, and the command's soft limit (memlimit.go) still applies.
// runtime/metrics would tell the live heap directly, but its initialiser
// costs every start (TestStartupInitialisers); runtime.ReadMemStats, a
// short stop of the world, is read every gcTuneEvery dumps when a
// collection has ended since the last reading: the live heap it tells is
// the last collection's, so a second reading in one cycle tells nothing
// new and only stops every worker (issue 29: 62 readings over 2,000 warm
// dumps at -j 2, against 22 collections).
//
// The run starts at gcMaxPercent: the heap is nearly empty then, so the
// first goal is Go's 4 MB minimum scaled by it, the 16 MiB of headroom
// the tuner allows. At GOGC 100 a warm batch first collected twice at a
// 4 MB goal, 2-6 ms of marking before the tuner's first reading (issue
// 29). The first reading comes at the first dump done after the first
// collection, not at gcTuneEvery dumps, so that a run whose first dumps
// leave much live (parsed symbols) is brought back to GOGC 100 within one
// dump of its first collection.
type gcTuner struct {
	enabled bool
	dumps   atomic.Int64
	cycled  atomic.Bool // a collection ended since the last reading (watchCycles)
	read    atomic.Bool // the heap has been read once: later readings every gcTuneEvery dumps
	stopped atomic.Bool // restored: watchCycles stops
	mu      sync.Mutex  // one worker tunes at a time
	percent int         // the GOGC set; 0 when disabled or restored
	old     int         // the GOGC before the run
}

const (
	gcHeadroom     = 16 << 20
	gcTuneEvery    = 32
	gcMaxPercent   = 400
	gcUsualPercent = 100
)

// newGCTuner returns a tuner, disabled when the user set GOGC, and sets
// the run's first GOGC, gcMaxPercent.
func newGCTuner() *gcTuner {
	_, set := os.LookupEnv("GOGC")
	t := &gcTuner{enabled: !set}
	if t.enabled {
		t.old = debug.SetGCPercent(gcMaxPercent)
		t.percent = gcMaxPercent
		t.watchCycles() // the first reading, after the first collection
	}
	return t
}

// gcSentinel is an object nothing refers to, freed by the next
// collection. It holds a pointer so that it is not one of the tiny
// allocator's blocks, which hold several objects and outlive each.
type gcSentinel struct{ _ *byte }

// watchCycles sets t.cycled once the next collection has ended, then
// watches for the one after, until restore.
func (t *gcTuner) watchCycles() {
	runtime.AddCleanup(new(gcSentinel), func(t *gcTuner) {
		t.cycled.Store(true)
		if !t.stopped.Load() {
			t.watchCycles()
		}
	}, t)
}

// done counts a processed dump, tuning when a collection has ended since
// the last tuning: at the first such dump, then every gcTuneEvery dumps.
func (t *gcTuner) done() {
	if !t.enabled {
		return
	}
	n := t.dumps.Add(1)
	if (t.read.Load() && n%gcTuneEvery != 0) || !t.cycled.Load() || !t.mu.TryLock() {
		return
	}
	defer t.mu.Unlock()
	if t.percent == 0 { // restored
		return
	}
	t.read.Store(true)
	t.cycled.Store(false) // before the reading: a collection ending now counts
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	// NextGC is the live heap of the last collection grown by the percent.
	live := m.NextGC * 100 / uint64(100+t.percent)
	p := gcMaxPercent
	if live > 0 {
		p = int(min(gcHeadroom*100/live, gcMaxPercent))
	}
	p = max(p, gcUsualPercent)
	if p != t.percent {
		debug.SetGCPercent(p)
		t.percent = p
	}
}

// restore puts back the GOGC of before the run.
func (t *gcTuner) restore() {
	t.stopped.Store(true)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.percent != 0 {
		debug.SetGCPercent(t.old)
		t.percent = 0
	}
}
