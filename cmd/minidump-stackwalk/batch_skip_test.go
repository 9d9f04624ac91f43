package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

// A directory scan follows links to files, reports a link to a directory
// and a dangling link, counts what it passed over in the summary, and the
// exit status says a path was skipped for an error (issue 26.15).
func TestBatchSaysWhatItSkipped(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	dump := filepath.Join(outside, "real.dmp")
	data, err := os.ReadFile(corpus.Testdata(t, "dumps", "amd64-fp.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dump, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a dump\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "linked.dmp")
	if err := os.Symlink(dump, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	dangling := filepath.Join(dir, "dangling.dmp")
	must(t, os.Symlink(filepath.Join(outside, "gone.dmp"), dangling))
	must(t, os.Symlink(outside, filepath.Join(dir, "dirlink")))

	sum := filepath.Join(t.TempDir(), "summary.json")
	results, stderr, status := runBatchCLI("", "--summary", sum, dir)
	got := byPath(results)
	if r := got[link]; r.Status != triage.StatusOK {
		t.Errorf("link to a dump: %+v, want it followed and processed", r)
	}
	if r := got[dangling]; r.Status != triage.StatusUnreadable {
		t.Errorf("dangling link: %+v, want an unreadable result", r)
	}
	if len(results) != 2 {
		t.Errorf("%d results, want 2: %+v", len(results), results)
	}
	if status != exitDump || !strings.Contains(stderr, "dirlink: symbolic link to a directory (skipped)") {
		t.Errorf("status %d, want 1 and the link to a directory reported:\n%s", status, stderr)
	}
	s := readSummary(t, sum)
	if s.Skipped[skipNotDump] != 1 || s.Skipped[skipDirLink] != 1 {
		t.Errorf("summary skipped %v, want 1 %q and 1 %q", s.Skipped, skipNotDump, skipDirLink)
	}
	if !strings.Contains(stderr, "skipped: 1 not a dump, 1 symbolic link to a directory") {
		t.Errorf("the totals line does not say what was skipped:\n%s", stderr)
	}
}

// No input at all is a failure, not "0 inputs" and exit 0; symbol files
// given where dumps go are a usage error pointing to --symbols-path, so
// that "batch dumps/ symbols/" never walks without its symbols (issue 28.1).
func TestBatchNoInputAndSymbolPaths(t *testing.T) {
	empty := t.TempDir()
	results, stderr, status := runBatchCLI("", empty)
	if status != exitDump || len(results) != 0 || !strings.Contains(stderr, "no dump found") || !strings.Contains(stderr, "no input found") {
		t.Errorf("empty directory: status %d, %d results, stderr:\n%s", status, len(results), stderr)
	}
	if _, stderr, status := runBatchCLI("", "-"); status != exitDump || !strings.Contains(stderr, "no input found") {
		t.Errorf("no paths on stdin: status %d, stderr:\n%s", status, stderr)
	}
	syms := corpus.Testdata(t, "symbols")
	dumps := t.TempDir()
	data, err := os.ReadFile(corpus.Testdata(t, "dumps", "amd64-fp.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(dumps, "a.dmp"), data, 0o644))
	sym := filepath.Join(syms, "crashdemo", "49560879E67F118807D2C11D1A997E730", "crashdemo.sym")
	for _, args := range [][]string{{dumps, syms}, {filepath.Join(dumps, "a.dmp"), sym}} {
		results, stderr, status := runBatchCLI("", args...)
		if status != exitUsage || len(results) != 0 || !strings.Contains(stderr, "--symbols-path") {
			t.Errorf("batch %q: status %d, %d results, stderr:\n%s", args, status, len(results), stderr)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// batch merge refuses a corrupt shard or the same shard twice, naming the
// file, exit status 1 and no output written (issue 26.17).
func TestBatchMergeRefusesBadShards(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	tmp := t.TempDir()
	shard := filepath.Join(tmp, "shard0.json")
	if _, stderr, status := runBatchCLI("", "--summary", shard, dump); status != exitOK {
		t.Fatalf("batch: status %d\n%s", status, stderr)
	}
	good, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(tmp, "truncated.json")
	must(t, os.WriteFile(truncated, good[:len(good)-20], 0o644))
	copied := filepath.Join(tmp, "copy.json")
	must(t, os.WriteFile(copied, good, 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{shard, truncated}, "truncated.json: summary: unexpected EOF"},
		{[]string{shard, shard}, "the same file as"},
		{[]string{shard, copied}, "copy.json: "},
	} {
		out := filepath.Join(tmp, "merged.json")
		_, stderr, status := runBatchCLI("", append([]string{"merge", "--summary", out}, tc.args...)...)
		if status != exitDump || !strings.Contains(stderr, tc.want) || fileExists(out) {
			t.Errorf("merge %q: status %d, merged written %v, stderr:\n%s\nwant 1, none, and %q", tc.args, status, fileExists(out), stderr, tc.want)
		}
	}
}

// A dump whose path is not UTF-8 gets path_base64, which maps its JSON
// line back to the file (issue 26.13).
func TestBatchRawPath(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(corpus.Testdata(t, "dumps", "amd64-fp.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "crash-\xff\xfe.dmp")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Skipf("this file system takes no such name: %v", err)
	}
	results, stderr, status := runBatchCLI("", dir)
	if status != exitOK || len(results) != 1 {
		t.Fatalf("status %d, %d results\n%s", status, len(results), stderr)
	}
	got, err := triage.PathFromRaw(results[0].Path, results[0].PathBase64)
	if err != nil || got != bad {
		t.Errorf("path %q, path_base64 %q: maps to %q (%v), want %q", results[0].Path, results[0].PathBase64, got, err, bad)
	}
	if _, ok := rawControl(stderr); ok {
		t.Errorf("stderr holds raw bytes of the path:\n%q", stderr)
	}
}
