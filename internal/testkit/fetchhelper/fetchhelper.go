// Package fetchhelper builds the helper program of symbol downloads,
// minidump-stackwalk-fetch, for the tests of the packages that download
// (internal/fetch, symsrv, debuginfod, pdbsupplier, elfsym, the command):
// their requests go through it as the command's do, so that every test of
// a symbol server or debuginfod tests the helper too.
package fetchhelper

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
)

// Run builds the helper into a temporary directory, puts that directory
// first on PATH (where fetch.FindHelper looks after the test binary's own
// directory), runs the tests through run (nil: m.Run) and removes it. A
// build that fails is reported on stderr; the tests that download then
// fail with fetch.ErrNoHelper.
func Run(m *testing.M, run func(*testing.M) int) int {
	if run == nil {
		run = (*testing.M).Run
	}
	dir, err := os.MkdirTemp("", "fetchhelper-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fetchhelper:", err)
		return run(m)
	}
	defer os.RemoveAll(dir)
	if err := Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, "fetchhelper:", err)
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return run(m)
}

// Build writes the helper program into dir with the go command on PATH,
// as the command's other tests build binaries (its build cache serves it).
func Build(dir string) error {
	bin := filepath.Join(dir, fetch.HelperName)
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command("go", "build", "-o", bin,
		"github.com/minidump-stackwalk/minidump-stackwalk/cmd/"+fetch.HelperName).CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build %s: %v\n%s", fetch.HelperName, err, out)
	}
	return nil
}
