package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionString(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}}
	if got, want := versionString(info, true), "v0.3.0 (go1.26.8)"; got != want {
		t.Errorf("release: %q, want %q", got, want)
	}
	info.Main.Version = ""
	info.Settings = []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "94bf57e"},
		{Key: "vcs.time", Value: "2026-11-25T15:12:32Z"}, {Key: "vcs.modified", Value: "true"},
	}
	if got, want := versionString(info, true), "(devel) (git 94bf57e+dirty, 2026-11-25T15:12:32Z, go1.26.8)"; got != want {
		t.Errorf("checkout: %q, want %q", got, want)
	}
	if got := versionString(nil, false); !strings.Contains(got, "unknown") {
		t.Errorf("no build info: %q", got)
	}
}

// -V and --version print the version without a dump and exit 0; a binary
// built from this checkout with VCS stamping names its revision.
func TestVersionFlag(t *testing.T) {
	for _, flag := range []string{"-V", "--version"} {
		out, errOut, status := runCLI(flag)
		if status != exitOK || !strings.HasPrefix(out, "minidump-stackwalk ") || errOut != "" {
			t.Errorf("%s: status %d, stdout %q, stderr %q", flag, status, out, errOut)
		}
	}
	if testing.Short() {
		t.Skip("-short: not building the binary")
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "minidump-stackwalk")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("go build -buildvcs=true: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-V").Output()
	if err == nil && !strings.Contains(string(out), "(git ") {
		// The go command stamps nothing in some checkouts (a git worktree).
		t.Skipf("the toolchain stamped no VCS information here: -V says %q", out)
	}
	if err != nil || !strings.Contains(string(out), strings.TrimSpace(string(rev))) {
		t.Errorf("-V of a stamped build: %q, %v; want revision %s", out, err, rev)
	}
}
