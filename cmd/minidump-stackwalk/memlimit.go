package main

import (
	"os"
	"runtime/debug"
)

// heapSoftLimit is the Go heap's soft limit (runtime/debug.SetMemoryLimit)
// the command runs with unless GOMEMLIMIT is set. Go's collector otherwise
// lets the heap grow to twice what is live before it collects, so a report
// whose live data is 250 MB (a million unloaded modules, the amplification
// dump's 131k frames) peaked at 450 to 520 MB; with the limit the collector
// runs when the heap nears it, and such inputs stay within docs/limits.md's
// 512 MB (TestPeakMemoryItem5). It is soft: a run that needs more live
// memory gets it, the collector then spending at most half the CPU.
const heapSoftLimit = 320 << 20

// setHeapSoftLimit applies heapSoftLimit unless the user chose one.
func setHeapSoftLimit() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	debug.SetMemoryLimit(heapSoftLimit)
}
