package report_test

import (
	"io"
	"testing"

	stackwalk "github.com/minidump-stackwalk/minidump-stackwalk"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/report"
)

// BenchmarkTinyDump runs the whole single-dump path of the CLI's default
// report on a small dump without symbols: open, process, demangle, print.
// Its allocations are most of what a one-shot process pays for in fresh
// heap pages (see docs/performance.md, start-up).
func BenchmarkTinyDump(b *testing.B) {
	const path = "../testdata/dumps/amd64-threads.dmp"
	b.ReportAllocs()
	for b.Loop() {
		d, err := stackwalk.OpenWith(path, stackwalk.Options{})
		if err != nil {
			b.Fatal(err)
		}
		st, err := d.Process(nil, processor.Options{})
		if err != nil {
			b.Fatal(err)
		}
		st.DemangleNames()
		if err := report.WriteHuman(io.Discard, st, report.DefaultHumanOptions); err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}
