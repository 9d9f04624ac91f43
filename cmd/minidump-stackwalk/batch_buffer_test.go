package main

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

// A dump read into a worker's buffer leaves nothing of it in its result or
// JSON report: after the buffer is overwritten (as the worker's next dump
// does), both equal those of the same dump read into its own memory. The
// dumps are read in one worker's order, larger ones after smaller, so the
// buffer is both reused and grown.
func TestDumpBufferNotKeptByResults(t *testing.T) {
	b := &batchFlags{}
	fs := pflag.NewFlagSet("batch", pflag.ContinueOnError)
	b.addFlags(fs)
	if err := fs.Parse([]string{"--symbols-path", "../../testdata/symbols"}); err != nil {
		t.Fatal(err)
	}
	if err := b.check(io.Discard); err != nil {
		t.Fatal(err)
	}
	buf := new(dumpBuffer)
	for _, name := range []string{"amd64-fp", "amd64-signal", "amd64-threads", "arm-abort", "amd64-realign", "amd64-overflow", "amd64-cpp"} {
		path := "../../testdata/dumps/" + name + ".dmp"
		own := b.o
		var wantJSON bytes.Buffer
		want := processBatchInput(&own, path, nil, &wantJSON)

		withBuf := b.o
		withBuf.readBuf = buf
		reused := buf.bytes()
		clear(reused)
		var gotJSON bytes.Buffer
		got := processBatchInput(&withBuf, path, nil, &gotJSON)
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		fits, used := st.Size() <= int64(len(reused)), bytes.HasPrefix(reused, []byte("MDMP"))
		if fits != used {
			t.Errorf("%s: a dump of %d bytes, a buffer of %d: read into it %v, want %v", name, st.Size(), len(reused), used, fits)
		}
		for i := range reused {
			reused[i] = 0xa5
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: result after the buffer's reuse differs (-own memory +buffer):\n%s", name, diff)
		}
		if !bytes.Equal(wantJSON.Bytes(), gotJSON.Bytes()) {
			t.Errorf("%s: JSON report differs", name)
		}
		if want.Status != "ok" {
			t.Errorf("%s: status %s (%s)", name, want.Status, want.Error)
		}
	}
	if cap(buf.b) < 181827 || cap(buf.b)%dumpBufferStep != 0 {
		t.Errorf("buffer of %d bytes after amd64-overflow's 181,827", cap(buf.b))
	}
}
