package report

import (
	"io"
	"strings"
	"testing"
)

// countingWriter counts the bytes written through it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// TestStackDumpBounded: -d over 1000 threads that share one 1 MiB stack
// region (a hostile dump; 13.8 GB of output before) prints at most the
// bound's stack memory and says where it was cut (issue 26, item 6).
func TestStackDumpBounded(t *testing.T) {
	stack := make([]byte, 1<<20)
	p := &textProcess{CPU: "amd64", Symbolize: func(uint64) []sourceInfo { return nil }}
	for range 1000 {
		p.Threads = append(p.Threads, textThread{StackBase: 0x7000_0000, Stack: stack, SP: 0x7000_0000, SPValid: true})
	}
	var c countingWriter
	var tail strings.Builder
	opts := DefaultHumanOptions
	opts.StackDump = true
	if err := writeHuman(io.MultiWriter(&c, &lastLines{b: &tail}), p, opts); err != nil {
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
