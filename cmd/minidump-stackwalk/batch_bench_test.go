package main

import (
	"io"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// BenchmarkBatchPerf: one batch run over the 20 perf dumps (a fresh symbol
// cache each time, so each run reads and indexes the symbol files once).
// scripts/bench-batch.sh compares it with Breakpad's loop.
func BenchmarkBatchPerf(b *testing.B) {
	dir := corpus.Shared(b, "perf", "dumps")
	syms := corpus.PerfSymbols(b)
	for b.Loop() {
		status := exitOK
		cmd := newBatchCommand(nil, io.Discard, io.Discard, &status)
		cmd.SetArgs([]string{"--symbols-path", syms, "--progress", "never", dir})
		if err := cmd.Execute(); err != nil || status != exitOK {
			b.Fatalf("batch: %v, status %d", err, status)
		}
	}
}
