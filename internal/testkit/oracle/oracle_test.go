package oracle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

func TestDirFromEnvironment(t *testing.T) {
	t.Setenv(EnvDir, "/some/where")
	if got := Dir(); got != "/some/where" {
		t.Errorf("Dir() = %q with %s set; want /some/where", got, EnvDir)
	}
	t.Setenv(EnvDir, "")
	if got := Dir(); got != DefaultDir() {
		t.Errorf("Dir() = %q with %s empty; want %q", got, EnvDir, DefaultDir())
	}
}

func TestLookup(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	if err := os.WriteFile(filepath.Join(dir, Stackwalk), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, Dump), []byte("not executable"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, ok := Lookup(Stackwalk); !ok || p != filepath.Join(dir, Stackwalk) {
		t.Errorf("Lookup(%s) = %q, %v; want %q, true", Stackwalk, p, ok, filepath.Join(dir, Stackwalk))
	}
	if _, ok := Lookup(Dump); ok {
		t.Errorf("Lookup(%s) found a file without execute permission", Dump)
	}
	if _, ok := Lookup(DumpSyms); ok {
		t.Errorf("Lookup(%s) found a missing file", DumpSyms)
	}
}

func TestRequireSkipsWhenAbsent(t *testing.T) {
	t.Setenv(EnvDir, t.TempDir())
	var skipped bool
	t.Run("absent", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Require(t, Stackwalk)
		t.Error("Require returned for a missing binary")
	})
	if !skipped {
		t.Error("Require did not skip the test when the binary is absent")
	}
}

// testdata/oracle/amd64-fp: gdb's backtrace of the crash shown in README.md
// (a NULL write in fp_leaf, three calls deep) and Breakpad's -m output of the
// dump core2md made of the same core.
func TestReadKeptOracleFiles(t *testing.T) {
	threads := ReadGDBFrames(t, corpus.Testdata(t, "oracle", "amd64-fp.frames.txt"))
	if len(threads) != 1 || !threads[0].Crashed || len(threads[0].Frames) < 3 {
		t.Fatalf("gdb listing: %d threads, want one crashed thread with at least 3 frames", len(threads))
	}
	th := threads[0]
	if f := th.Frames[0]; f.Type != "normal" || f.Function != "fp_leaf" {
		t.Errorf("gdb frame 0 = %+v, want a normal frame in fp_leaf", f)
	}
	if pcs := th.PCs(); len(pcs) != len(th.Frames) || pcs[0] != th.Frames[0].PC || pcs[0] != th.Regs["rip"] {
		t.Errorf("PCs() = %#x, frame 0 %#x, rip %#x", pcs, th.Frames[0].PC, th.Regs["rip"])
	}
	frames := ReadMachineFrames(t, corpus.Testdata(t, "oracle", "amd64-fp.breakpad.machine.txt"))
	if len(frames) < 3 {
		t.Fatalf("%d -m frames, want at least 3", len(frames))
	}
	if f := frames[0]; f.Thread != 0 || f.Frame != 0 || f.Module != "crashdemo" || f.Function != "fp_leaf" {
		t.Errorf("-m frame 0 = %+v, want thread 0 frame 0 crashdemo!fp_leaf", f)
	}
	for i, f := range frames[1:] {
		if f.Frame == 0 && f.Thread == frames[i].Thread {
			t.Errorf("-m frame %d restarts numbering within thread %d", i+1, f.Thread)
		}
	}
}

func TestParseGDBFramesRejectsMalformed(t *testing.T) {
	for _, text := range []string{
		"thread 1 crashed\nframe 0 notanumber normal f\n",
		"thread 1\nframe 0 0x10 normal\n",
		"frame 0 0x10 normal f\n", // before any thread
		"thread x\n",
		"thread 1\nreg rip\n",
		"thread 1\nunknown 1 2\n",
	} {
		if _, err := parseGDBFrames(strings.NewReader(text)); err == nil {
			t.Errorf("parseGDBFrames(%q) accepted a malformed listing", text)
		}
	}
	threads, err := parseGDBFrames(strings.NewReader("# comment\nthread 7\nlibrary /lib/x.so 0x1 0x2\nreg pc 0x20\nframe 0 0x20 normal operator new(unsigned long)\n"))
	if err != nil || len(threads) != 1 || threads[0].LWP != 7 || threads[0].Crashed || threads[0].Regs["pc"] != 0x20 ||
		len(threads[0].Frames) != 1 || threads[0].Frames[0].Function != "operator new(unsigned long)" {
		t.Errorf("parseGDBFrames = %+v, %v", threads, err)
	}
}

func TestUntilForeign(t *testing.T) {
	want := []uint64{1, 2, 3, 4}
	for _, c := range []struct{ walk, until []uint64 }{
		{[]uint64{1, 2, 9, 3, 4}, []uint64{1, 2}},
		{[]uint64{1, 3, 4}, []uint64{1, 3, 4}},
		{[]uint64{7}, []uint64{}},
		{nil, nil},
	} {
		if got := UntilForeign(c.walk, want); len(got) != len(c.until) || (len(got) > 0 && got[len(got)-1] != c.until[len(c.until)-1]) {
			t.Errorf("UntilForeign(%v) = %v, want %v", c.walk, got, c.until)
		}
	}
}
