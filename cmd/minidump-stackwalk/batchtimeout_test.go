package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

// TestBatchTimeoutCancelsWalks: with -j 1 --timeout, a dump past the limit
// has its walks cancelled and is waited for before the next dump starts,
// so normal dumps after hostile ones are not timed out too (issue 26, item
// 2; before, the timed-out walks ran on, and -j 1 --timeout 1s over 8
// hostile and 20 normal dumps peaked at 5.9 GB).
func TestBatchTimeoutCancelsWalks(t *testing.T) {
	hostileDump, err := hostile.FrameChain(100, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	normal, err := os.ReadFile(corpus.Testdata(t, "dumps", "amd64-fp.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range 3 {
		for _, f := range []struct {
			name string
			data []byte
		}{{"a-hostile", hostileDump}, {"b-normal", normal}} {
			if err := os.WriteFile(filepath.Join(dir, f.name+string(rune('0'+i))+".dmp"), f.data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	start := time.Now()
	// The frame cap is raised so that no hostile walk can end (cut at the
	// cap, "partial") before its 300 ms are up, however fast the machine.
	results, stderr, _ := runBatchCLI("", "-j", "1", "--timeout", "300ms", "--max-frames-total", "100000000",
		"--progress", "never", dir)
	if len(results) != 6 {
		t.Fatalf("%d results, want 6:\n%s", len(results), stderr)
	}
	for _, r := range results {
		want := triage.StatusOK
		if strings.Contains(r.Path, "hostile") {
			want = triage.StatusTimeout
		}
		if r.Status != want {
			t.Errorf("%s: %s (%s), want %s", filepath.Base(r.Path), r.Status, r.Error, want)
		}
	}
	// Three cancelled walks end soon after their 300 ms each; without
	// cancellation each would run to the 1 min walk budget beside the rest.
	if d := time.Since(start); d > 45*time.Second {
		t.Errorf("batch took %v", d)
	}
}

// TestBatchTimeoutCancelsDownloads (issue 26, item 7b): a dump past
// --timeout has its symbol downloads cancelled with its walks, from symbol
// servers and debuginfod alike: with servers that never answer, -j 1
// --timeout 1s over three dumps takes about three seconds, where each dump
// used to wait for its downloads' rate window (10 s), and the servers see
// their requests closed.
func TestBatchTimeoutCancelsDownloads(t *testing.T) {
	dump, err := os.ReadFile(elfModulesDump(t, 10))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("d%d.dmp", i)), dump, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stall, asked, open := stallingServer(t) // debuginfod_test.go
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // debuginfod's cache
	start := time.Now()
	results, stderr, _ := runBatchCLI("", "-j", "1", "--timeout", "1s", "--progress", "never",
		"--symbols-url", stall.URL+"/symbols", "--symbols-cache", t.TempDir(), "--debuginfod-url", stall.URL+"/debuginfod", dir)
	took := time.Since(start)
	if len(results) != 3 {
		t.Fatalf("%d results, want 3:\n%s", len(results), stderr)
	}
	for _, r := range results {
		if r.Status != triage.StatusTimeout {
			t.Errorf("%s: %s (%s), want %s", filepath.Base(r.Path), r.Status, r.Error, triage.StatusTimeout)
		}
	}
	if took > 8*time.Second {
		t.Errorf("batch took %v: the timed-out dumps' downloads were waited for", took)
	}
	if asked.Load() == 0 {
		t.Error("the servers were never asked")
	}
	for deadline := time.Now().Add(2 * time.Second); open.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := open.Load(); n > 0 {
		t.Errorf("%d requests still open after the batch", n)
	}
}
