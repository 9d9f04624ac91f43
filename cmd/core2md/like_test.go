package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/coreconv"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
)

// TestLikeFlag: --like breakpad on a core keeps the stack and the crashing
// pc's window only; on a minidump it writes coreconv.Shape's twin; a bad
// value is a usage error.
func TestLikeFlag(t *testing.T) {
	dir := t.TempDir()
	prog := unpackProgram(t, "arm64")
	core := filepath.Join(dir, "core")
	writeFile(t, core, readCore(t, "arm64-fp"))
	out := filepath.Join(dir, "out.dmp")
	var stderr strings.Builder
	if code := run([]string{"--like", "breakpad", "--module", prog, core, out}, &stderr); code != 0 {
		t.Fatalf("core --like breakpad = %d: %s", code, stderr.String())
	}
	if n := len(readDumpMemory(t, readFile(t, out)).regions); n != 2 {
		t.Errorf("core --like breakpad: %d regions, want 2 (the stack, the pc's window)", n)
	}
	dump := corpus.Testdata(t, "dumps", "arm64-fp.dmp")
	if code := run([]string{"--like", "crashpad", dump, out}, &stderr); code != 0 {
		t.Fatalf("dump --like crashpad = %d: %s", code, stderr.String())
	}
	want, err := coreconv.Shape(readFile(t, dump), coreconv.ClientCrashpad)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, out), want) {
		t.Error("dump --like crashpad differs from coreconv.Shape's twin")
	}
	stderr.Reset()
	if code := run([]string{"--like", "windows", dump, out}, &stderr); code != 2 || !strings.Contains(stderr.String(), "--like") {
		t.Errorf("--like windows = %d: %s", code, stderr.String())
	}
}
