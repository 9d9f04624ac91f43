package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

// stoppableRun is a batch run over fake inputs writing --output-dir,
// --summary and --html under dir; the input "hangs" writes half a report
// sends SIGTERM and waits for release.
func stoppableRun(t *testing.T, dir string, out io.Writer, signals chan os.Signal, release chan struct{}) *batchRun {
	t.Helper()
	var stderr bytes.Buffer
	b := &batchFlags{jobs: 1, examples: 3, progress: "never", top: 5,
		outputDir: filepath.Join(dir, "out"), summaryFile: filepath.Join(dir, "summary.json"), htmlFile: filepath.Join(dir, "report.html")}
	b.o.symbolServer.addFlags(pflag.NewFlagSet("symbols", pflag.ContinueOnError))
	b.o.limits.addFlags(pflag.NewFlagSet("limits", pflag.ContinueOnError))
	if err := b.check(&stderr); err != nil {
		t.Fatal(err)
	}
	r := &batchRun{flags: b, builder: summary.NewBuilder(3), stderr: &bytes.Buffer{}, out: out, signals: signals, broken: make(chan struct{})}
	r.process = func(o *options, path string, sup symfile.Supplier, jsonOut io.Writer) triage.Result {
		switch path {
		case "hangs": // half a report written when the signal comes
			jsonOut.Write([]byte(`{"half": `))
			signals <- syscall.SIGTERM
			<-release
		}
		jsonOut.Write([]byte("{}\n"))
		n := 0
		return triage.Result{Path: path, Status: triage.StatusOK, CrashingThread: &n,
			Frames: []triage.Frame{{Module: "m", Function: "f", Offset: "0x1", Trust: "context"}}}
	}
	return r
}

// checkStopped checks what a stopped run leaves: the exit status, a
// summary and an HTML report of the inputs done, no temporary file in
// --output-dir.
func checkStopped(t *testing.T, dir string, status, wantStatus, total int) {
	t.Helper()
	if status != wantStatus {
		t.Errorf("status %d, want %d", status, wantStatus)
	}
	s := readSummary(t, filepath.Join(dir, "summary.json"))
	if s.Inputs == 0 || s.Inputs >= total {
		t.Errorf("summary of %d inputs, want those done before the stop (some, not all %d)", s.Inputs, total)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Errorf("no HTML report: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "out"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left in --output-dir: %s", e.Name())
		}
	}
}

// SIGINT, SIGTERM (issue 26.16): the run stops taking inputs, waits a
// short grace for the one in flight (here one that hangs), writes the
// summary and HTML of what was done, removes its temporaries and exits
// with 128 + the signal.
func TestBatchStopsOnSignal(t *testing.T) {
	dir := t.TempDir()
	signals := make(chan os.Signal, 2)
	release := make(chan struct{})
	defer close(release)
	var out bytes.Buffer
	r := stoppableRun(t, dir, &out, signals, release)
	paths := []string{"a", "b", "hangs"}
	for i := range 20 {
		paths = append(paths, fmt.Sprintf("later%d", i))
	}
	status := r.run(paths)
	checkStopped(t, dir, status, exitSignal+int(syscall.SIGTERM), len(paths))
	if !strings.Contains(r.stderr.(*bytes.Buffer).String(), "stopped by terminated after") {
		t.Errorf("stderr does not say the run was stopped:\n%s", r.stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("half a JSON line on stdout: %q", line)
		}
	}
}

// epipeWriter is a stdout whose reader has gone (batch ... | head -1).
type epipeWriter struct{ lines int }

func (w *epipeWriter) Write(b []byte) (int, error) {
	if w.lines++; w.lines > 2 {
		return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
	}
	return len(b), nil
}

// A closed stdout stops the run as SIGPIPE would, with the reports
// written (issue 26.16).
func TestBatchStopsOnClosedPipe(t *testing.T) {
	dir := t.TempDir()
	release := make(chan struct{})
	close(release)
	r := stoppableRun(t, dir, &epipeWriter{}, make(chan os.Signal, 2), release)
	var paths []string
	for i := range 50 {
		paths = append(paths, fmt.Sprintf("in%d", i))
	}
	status := r.run(paths)
	checkStopped(t, dir, status, exitSignal+int(syscall.SIGPIPE), len(paths))
}

// A closed stdout stops the queue at the next take, whether or not feed
// has run since: with one CPU (go test -cpu 1) the worker otherwise took
// all 50 inputs of TestBatchStopsOnClosedPipe before feed saw the pipe.
func TestQueueStopsWhenBroken(t *testing.T) {
	broken := make(chan struct{})
	q := newInputQueue([]string{"a", "b", "c"}, broken)
	if p, ok := q.take(); !ok || p != "a" {
		t.Fatalf("first take: %q %v, want a", p, ok)
	}
	close(broken)
	if p, ok := q.take(); ok {
		t.Errorf("took %q after stdout's reader went", p)
	}
}
