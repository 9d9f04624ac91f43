package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// --debuginfo-path with a Mach-O binary and its dSYM walks the synthetic
// macOS dumps of testdata/macos (x86_64 and arm64) to their frames by
// construction (crash.truth), in the normal and the batch modes; without
// it the x86_64 walk, whose callers are frameless, loses frames.
func TestDebuginfoPathMachO(t *testing.T) {
	for _, arch := range []string{"x86_64", "arm64"} {
		dir := "../../testdata/macos/" + arch
		truth, err := os.ReadFile(dir + "/crash.truth")
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, l := range strings.Split(strings.TrimSpace(string(truth)), "\n") {
			want = append(want, strings.Fields(l)[0])
		}
		out, errOut, status := runCLI("-m", "--debuginfo-path", dir, dir+"/crash.dmp")
		if status != exitOK {
			t.Fatalf("%s: status %d: %s", arch, status, errOut)
		}
		var got []string
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Split(line, "|"); len(f) == 7 && f[0] == "0" {
				got = append(got, f[3])
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: frames %v, want %v", arch, got, want)
		}
		out, errOut, status = runCLI("batch", "--debuginfo-path", dir, dir+"/crash.dmp")
		if status != exitOK {
			t.Fatalf("%s batch: status %d: %s", arch, status, errOut)
		}
		var rec struct {
			Frames []struct{ Function, Trust string }
		}
		if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &rec); err != nil {
			t.Fatalf("%s batch: %v: %s", arch, err, out)
		}
		got = got[:0]
		for i, f := range rec.Frames {
			got = append(got, f.Function)
			if i > 0 && f.Trust != "cfi" {
				t.Errorf("%s batch: frame %d found by %s", arch, i, f.Trust)
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s batch: frames %v, want %v", arch, got, want)
		}
	}
	out, _, _ := runCLI("-m", "../../testdata/macos/x86_64/crash.dmp")
	if n := strings.Count(out, "\n0|"); n >= 5 {
		t.Errorf("without the Mach-O: %d frames; the frame pointer walk was expected to lose frameless callers", n)
	}
}
