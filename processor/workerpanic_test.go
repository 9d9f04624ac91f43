package processor

import (
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/mapfault"
)

// TestWalkParallelCarriesPanics: a panic in a walking goroutine reaches
// Process's goroutine, where it can be recovered, with the worker's stack
// (issue 26, item 19); the other walks still run.
func TestWalkParallelCarriesPanics(t *testing.T) {
	walked := make([]bool, 50)
	v := func() (v any) {
		defer func() { v = recover() }()
		walkParallel(len(walked), new(WalkMemory).get(4), func(j int, _ *walkWorker) {
			if j == 7 {
				panic("bad walk")
			}
			walked[j] = true
		})
		return nil
	}()
	p, ok := v.(*mapfault.Panic)
	if !ok || p.Value != "bad walk" || !strings.Contains(p.Error(), "walkParallel") {
		t.Fatalf("recovered %#v, want a *WorkerPanic with the worker's stack", v)
	}
	n := 0
	for _, w := range walked {
		if w {
			n++
		}
	}
	if n == 0 {
		t.Error("no other walk ran")
	}
}
