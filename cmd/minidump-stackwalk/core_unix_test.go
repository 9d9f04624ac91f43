//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// Walking a core reads no file the core names unless --sysroot gives a
// root, and then never a file that is not regular: a FIFO at the program's
// path under the root (opening it would block) leaves the walk as it is
// without a root.
func TestCoreSysrootReadsOnlyRegularFiles(t *testing.T) {
	core := unpackCore(t, "amd64-fp")
	symbols := corpus.Testdata(t, "symbols")
	want, _, status := runCLI(core, symbols)
	if status != exitOK || !strings.Contains(want, "crashdemo!fp_leaf") {
		t.Fatalf("without --sysroot: status %d:\n%s", status, want)
	}
	root := t.TempDir()
	// The program's path as the core's NT_FILE note names it (the generator's build directory).
	prog := filepath.Join(root, "tmp", "gen-testdata", "amd64", "crashdemo")
	if err := os.MkdirAll(filepath.Dir(prog), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(prog, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got, errOut, status := runCLI("--sysroot", root, core, symbols)
	if status != exitOK || got != want {
		t.Errorf("--sysroot with a FIFO at the program's path: status %d, stderr %q, output:\n%s\nwant:\n%s", status, errOut, got, want)
	}
}
