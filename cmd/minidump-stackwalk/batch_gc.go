package main

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// batchHeadroom is how far a batch's heap may grow past what the last
// collection left live before the next one, when that is more than Go's
// default of as much again (GOGC=100). A warm batch keeps a few MB live
// and allocates a few hundred KB per dump, so the default collected every
// ten dumps or so: a fifth of its CPU time went to collections, the
// write barriers they turn on and the scavenger returning pages that the
// next dumps faulted in again. More headroom means fewer collections but
// more fresh pages touched once (each a page fault); 16 MiB was the best
// of 4 to 64 MiB over the perf dumps (docs/performance.md). Once the live
// heap passes the headroom (many symbol files' parsed functions) the
// default holds, and the soft limit (memlimit.go) bounds the heap as in
// the single-dump mode: the headroom adds at most 16 MiB to a run's peak.
const batchHeadroom = 16 << 20

// minHeapGoal is the runtime's heap minimum at GOGC=100: it scales with
// the percentage (4 MiB × GOGC / 100), so a percentage set for a small
// live heap must not raise it past live + batchHeadroom.
const minHeapGoal = 4 << 20

// gcTuner sets the collector's percentage from the live heap while a
// batch runs, so that the heap grows by batchHeadroom, or by as much as
// is live when that is more. The live heap is read every gcTuneEvery
// dumps (runtime/metrics: no stop of the world).
type gcTuner struct {
	mu      sync.Mutex
	off     bool // GOGC set by the user: left alone
	dumps   int
	percent int
	prev    int // the percentage before the run, set again by restore
	sample  [1]metrics.Sample
}

const (
	gcTuneEvery  = 16
	maxGCPercent = 10000
)

// newGCTuner starts tuning, unless GOGC is set in the environment.
func newGCTuner() *gcTuner {
	t := &gcTuner{percent: -1}
	if _, set := os.LookupEnv("GOGC"); set {
		t.off = true
		return t
	}
	t.sample[0].Name = "/gc/heap/live:bytes"
	t.prev = debug.SetGCPercent(100)
	t.percent = 100
	return t
}

// done counts a dump processed, and every gcTuneEvery dumps sets the
// percentage again. A nil tuner does nothing.
func (t *gcTuner) done() {
	if t == nil || t.off {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dumps++; t.dumps%gcTuneEvery != 0 {
		return
	}
	metrics.Read(t.sample[:])
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		t.set(t.sample[0].Value.Uint64())
	}
}

// set sets the percentage for a live heap of live bytes (0: none
// measured yet, the default kept).
func (t *gcTuner) set(live uint64) {
	p := 100
	if live > 0 {
		p = int(max(100, min(batchHeadroom*100/live, (live+batchHeadroom)*100/minHeapGoal, maxGCPercent)))
	}
	if p != t.percent {
		debug.SetGCPercent(p)
		t.percent = p
	}
}

// restore sets the percentage the run started with.
func (t *gcTuner) restore() {
	if t != nil && !t.off {
		debug.SetGCPercent(t.prev)
	}
}
