package main

// Helper F's test: microdump output against Breakpad's microdump_stackwalk.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// TestMicrodumpIdentical runs every corpus microdump of a CPU we walk and
// requires output byte-identical to microdump_stackwalk's (human and -m),
// as regenerated in ../shared/corpus/breakpad/expected.
func TestMicrodumpIdentical(t *testing.T) {
	dir := corpus.Shared(t, "corpus", "breakpad")
	for _, name := range []string{"arm", "arm64", "x86", "multiple", "withcrashreason"} {
		for _, machine := range []bool{false, true} {
			checkMicrodump(t, dir, name, machine, nil, filepath.Join(dir, "symbols", "microdump"))
		}
	}
}

// checkMicrodump runs the command on ../shared's microdump-NAME.dmp (with
// -m when machine, flags before the dump, symbolPath after it) and requires
// exit status 0 and output identical to microdump_stackwalk's in
// expected/. It returns the command's stderr.
func checkMicrodump(t *testing.T, dir, name string, machine bool, flags []string, symbolPath string) (stderr string) {
	t.Helper()
	args := append(append([]string{}, flags...), filepath.Join(dir, "microdumps", "microdump-"+name+".dmp"), symbolPath)
	golden := "microdump-" + name + ".stackwalk.txt"
	if machine {
		args = append([]string{"-m"}, args...)
		golden = "microdump-" + name + ".machine.txt"
	}
	want, err := os.ReadFile(filepath.Join(dir, "expected", golden))
	if err != nil {
		t.Fatal(err)
	}
	got, stderr, status := runCLI(args...)
	if status != exitOK {
		t.Errorf("%s: exit %d: %s", golden, status, stderr)
		return stderr
	}
	if got != string(want) {
		t.Errorf("%s differs from Breakpad's:\n%s", golden, microdumpDiff(got, string(want)))
	}
	return stderr
}

// TestMicrodumpMIPS: mips microdumps parse but we have no mips walker, so
// the run fails as microdump_stackwalk does when it has no stackwalker.
func TestMicrodumpMIPS(t *testing.T) {
	dir := corpus.Shared(t, "corpus", "breakpad")
	var stdout, stderr bytes.Buffer
	status := run([]string{filepath.Join(dir, "microdumps", "microdump-mips32.dmp")}, &stdout, &stderr)
	if status != exitDump || stdout.Len() != 0 || !strings.Contains(stderr.String(), "no usable CPU context") {
		t.Errorf("mips32: exit %d, stdout %q, stderr %q", status, stdout.String(), stderr.String())
	}
}

func microdumpDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, a, b)
		}
	}
	return "(lengths differ)"
}
