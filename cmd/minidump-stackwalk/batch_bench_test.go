package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
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
		runBatchBench(b, "--symbols-path", syms, "--progress", "never", dir)
	}
}

// BenchmarkBatchWarm: the batch throughput with warm symbols (issue 29):
// one batch run over 400 copies of the 20 perf dumps, the persistent index
// built by an untimed first run. It reports dumps/s;
// scripts/bench/batch-warm.sh times the CLI over 2,000 copies.
func BenchmarkBatchWarm(b *testing.B) {
	src := corpus.Shared(b, "perf", "dumps")
	syms := corpus.PerfSymbols(b)
	dir := filepath.Join(b.TempDir(), "dumps")
	n := copyDumps(b, src, dir, 20)
	args := []string{"--symbols-path", syms, "--index-dir", filepath.Join(b.TempDir(), "index"), "--progress", "never", dir}
	for _, j := range []string{"1", "2"} {
		b.Run("j"+j, func(b *testing.B) {
			args := append([]string{"-j", j}, args...)
			runBatchBench(b, args...) // builds the index, warms the page cache
			for b.Loop() {
				runBatchBench(b, args...)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "dumps/s")
		})
	}
}

// copyDumps links (or copies) every file of src into dst, k times over,
// and returns how many files dst holds.
func copyDumps(b *testing.B, src, dst string, k int) int {
	b.Helper()
	names, err := os.ReadDir(src)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		b.Fatal(err)
	}
	n := 0
	for i := range k {
		for _, e := range names {
			from, to := filepath.Join(src, e.Name()), filepath.Join(dst, fmt.Sprintf("c%d-%s", i, e.Name()))
			if os.Link(from, to) != nil {
				data, err := os.ReadFile(from)
				if err == nil {
					err = os.WriteFile(to, data, 0o644)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			n++
		}
	}
	return n
}

func runBatchBench(b *testing.B, args ...string) {
	b.Helper()
	status := exitOK
	cmd := newBatchCommand(nil, io.Discard, io.Discard, &status)
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil || status != exitOK {
		b.Fatalf("batch %v: %v, status %d", args, err, status)
	}
}
