//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// Every file batch writes gets 0666 less the umask, as --output-file's
// os.Create gives: a CI job must be able to publish them (issue 28; a
// temporary file renamed used to leave 0600).
func TestBatchFileModesFollowUmask(t *testing.T) {
	dir := t.TempDir()
	reports := filepath.Join(dir, "reports")
	files := map[string]string{}
	for _, name := range []string{"report.html", "summary.json", "junit.xml", "results.sarif"} {
		files[name] = filepath.Join(dir, name)
	}
	d := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	old := syscall.Umask(0o022)
	_, stderr, status := runBatchCLI("", "--html", files["report.html"], "--summary", files["summary.json"],
		"--output-dir", reports, "--format", "junit="+files["junit.xml"], "--format", "sarif="+files["results.sarif"], d)
	syscall.Umask(old)
	if status != exitOK {
		t.Fatalf("status %d\n%s", status, stderr)
	}
	written, _ := filepath.Glob(filepath.Join(reports, "*.json"))
	if len(written) != 1 {
		t.Fatalf("--output-dir holds %q, want one report", written)
	}
	for _, p := range append(written, files["report.html"], files["summary.json"], files["junit.xml"], files["results.sarif"]) {
		fi, err := os.Stat(p)
		if err != nil {
			t.Error(err)
			continue
		}
		if got := fi.Mode().Perm(); got != 0o644 {
			t.Errorf("%s: mode %03o, want 0644 (umask 022)", filepath.Base(p), got)
		}
	}
}
