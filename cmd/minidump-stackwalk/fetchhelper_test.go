package main

import (
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// TestFetchHelperMissing: with the download helper neither beside the
// command nor on PATH, a symbol server or a debuginfod URL is refused at
// once, the message naming the helper and how to install it; a run
// without one does not need it.
func TestFetchHelperMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dump := corpus.Testdata(t, "dumps", "amd64-threads.dmp")
	for _, args := range [][]string{
		{"--symbols-cache", t.TempDir(), dump, "http://127.0.0.1:1/symbols"},
		{"--debuginfod-url", "http://127.0.0.1:1", dump},
	} {
		_, stderr, status := runCLI(args...)
		if status == exitOK || !strings.Contains(stderr, fetch.HelperName+" not found") || !strings.Contains(stderr, "go install") {
			t.Errorf("%q: status %d, stderr %q; want a failure naming %s and how to install it", args, status, stderr, fetch.HelperName)
		}
	}
	if _, stderr, status := runCLI("-m", dump); status != exitOK {
		t.Errorf("without a server: status %d, stderr %q", status, stderr)
	}
}
