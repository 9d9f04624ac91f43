package fuzzbudget

import (
	"runtime"
	"testing"
	"time"
)

// Defaults: the bounds the robustness campaign holds every run to.
const (
	DefaultTime  = 5 * time.Second
	DefaultAlloc = 512 << 20 // bytes allocated, freed or not
)

// Budget is the time and the bytes one input may use.
type Budget struct {
	Time  time.Duration
	Alloc uint64
}

// Default is DefaultTime and DefaultAlloc.
var Default = Budget{DefaultTime, DefaultAlloc}

// Run runs fn and fails t when it took longer than b.Time or allocated
// more than b.Alloc bytes. Allocations are counted by the runtime
// (MemStats.TotalAlloc), so memory freed along the way counts: an input
// that churns gigabytes is reported even if its peak is low. Fuzzing runs
// one input at a time per process, so the count is this input's.
//
// fn runs on its own goroutine, so that an input that never ends fails
// once its time is spent (the goroutine is then left behind); t.Fatal in
// fn still ends fn and fails t.
func (b Budget) Run(t testing.TB, fn func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	timer := time.NewTimer(b.Time)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Fatalf("input still running after %v (budget %v)", time.Since(start).Round(time.Millisecond), b.Time)
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > b.Alloc {
		t.Errorf("input allocated %d MiB, budget %d MiB", alloc>>20, b.Alloc>>20)
	}
	if elapsed > b.Time {
		t.Errorf("input took %v, budget %v", elapsed.Round(time.Millisecond), b.Time)
	}
}
