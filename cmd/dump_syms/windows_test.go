package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunWindows: given either file of crash.exe/crash.pdb, dump_syms
// finds the other beside it and writes the MODULE and INFO lines of
// Breakpad's crash.sym; an image alone gets MODULE and INFO from itself.
func TestRunWindows(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "corpus", "symbolic", "windows")
	ref, err := os.ReadFile(filepath.Join(dir, "crash.sym"))
	if err != nil {
		t.Skip("../shared/corpus/symbolic/windows is absent")
	}
	head := strings.Join(strings.SplitN(string(ref), "\n", 3)[:2], "\n") + "\n"
	for _, name := range []string{"crash.exe", "crash.pdb"} {
		var out, errOut bytes.Buffer
		if rc := run([]string{filepath.Join(dir, name)}, &out, &errOut); rc != 0 {
			t.Fatalf("%s: exit %d: %s", name, rc, errOut.String())
		}
		if !strings.HasPrefix(out.String(), head) || !strings.Contains(out.String(), "\nSTACK WIN 4 ") {
			t.Errorf("%s: output starts %.200q, want %q", name, out.String(), head)
		}
	}
	alone := filepath.Join(t.TempDir(), "crash.exe")
	b, _ := os.ReadFile(filepath.Join(dir, "crash.exe"))
	os.WriteFile(alone, b, 0o644)
	var out, errOut bytes.Buffer
	if rc := run([]string{alone}, &out, &errOut); rc != 0 || out.String() != head {
		t.Errorf("image alone: exit %d, output %q, want %q", rc, out.String(), head)
	}
}
