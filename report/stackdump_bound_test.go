package report

import (
	"io"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// countingWriter counts the bytes written through it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// TestStackDumpBounded: -d over 1000 threads that share one 1 MiB stack
// region (a hostile dump; 13.8 GB of output before) prints at most the
// bound's stack memory and says where it was cut (issue 26, item 6).
func TestStackDumpBounded(t *testing.T) {
	stack := make([]byte, 1<<20)
	st := newState("amd64", false)
	ctx := ctxOf(minidump.ArchAMD64, map[string]uint64{"rsp": 0x7000_0000})
	for range 1000 {
		th := withFrames(st)
		th.StackBase, th.Stack, th.Context = 0x7000_0000, stack, &ctx
	}
	var c countingWriter
	var tail strings.Builder
	opts := DefaultHumanOptions
	opts.StackDump = true
	if err := WriteHuman(io.MultiWriter(&c, &lastLines{b: &tail}), st, opts); err != nil {
		t.Fatal(err)
	}
	// About 40 bytes per 8-byte word: 8 MiB of memory is about 42 MB.
	if max := int64(DefaultMaxStackDumpBytes) / 8 * 60; c.n > max {
		t.Errorf("-d wrote %d bytes, want at most %d", c.n, max)
	}
	if c.n < int64(DefaultMaxStackDumpBytes)/8*30 {
		t.Errorf("-d wrote %d bytes: less than the bound allows", c.n)
	}
	if !strings.Contains(tail.String(), "stack dump cut here") {
		t.Error("no line says the dump was cut")
	}
}

// lastLines keeps lines mentioning a cut.
type lastLines struct{ b *strings.Builder }

func (l *lastLines) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "cut") {
		l.b.Write(p)
	}
	return len(p), nil
}
