package fuzzbudget

import (
	"testing"
	"time"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, format)
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = append(r.failed, format)
}

var sink []byte

func TestRunReportsOverBudget(t *testing.T) {
	r := &recorder{TB: t}
	Budget{Time: time.Hour, Alloc: 1 << 20}.Run(r, func() { sink = make([]byte, 8<<20) })
	if len(r.failed) != 1 {
		t.Errorf("8 MiB against a 1 MiB budget: %d failures, want 1", len(r.failed))
	}
	r = &recorder{TB: t}
	Budget{Time: time.Nanosecond, Alloc: 1 << 30}.Run(r, func() { time.Sleep(time.Millisecond) })
	if len(r.failed) == 0 {
		t.Errorf("1 ms against 1 ns: %d failures, want 1", len(r.failed))
	}
	r = &recorder{TB: t}
	Default.Run(r, func() { sink = make([]byte, 1024) })
	if len(r.failed) != 0 {
		t.Errorf("a small input failed: %v", r.failed)
	}
}
