package processor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// overlapDump lays out modules that overlap in every way (partly, one inside
// another, the same base, an exact duplicate) and one thread per probe
// address, its instruction pointer there.
func overlapDump(t *testing.T, osv synth.OS, probes []uint64) []byte {
	t.Helper()
	b := synth.New(minidump.ArchAMD64, osv)
	b.AddModule("/m/a", 0x400000, 0x10000)
	b.AddModule("/m/b", 0x408000, 0x10000) // overlaps a's top
	b.AddModule("/m/c", 0x500000, 0x1000)
	b.AddModule("/m/d", 0x500000, 0x2000) // c's base
	b.AddModule("/m/e", 0x600000, 0x10000)
	b.AddModule("/m/f", 0x604000, 0x1000)  // inside e
	b.AddModule("/m/a", 0x400000, 0x10000) // duplicate
	b.AddModule("/m/g", 0x700000, 0x1000)
	for i, ip := range probes {
		ctx := minidump.NewContext(minidump.ArchAMD64)
		ctx.SetSP(0x7010)
		ctx.SetIP(ip)
		b.AddThread(uint32(i+1), ctx, 0x7000, make([]byte, 16))
	}
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// moduleLines renders what -m prints of the modules and each thread's frame
// 0 module: "Module|name|base|end|main" lines, then one module name per
// thread.
func moduleLines(t *testing.T, data []byte, opts Options) (mods, frames []string) {
	t.Helper()
	d := openBytes(t, data)
	st, err := Process(d, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range st.ModuleOrder {
		m := st.Modules[i]
		main := 0
		if m.Base == st.Modules[st.MainModule].Base {
			main = 1
		}
		mods = append(mods, fmt.Sprintf("%s|0x%08x|0x%08x|%d", symfile.BaseName(m.CodeFile), m.Base, m.Base+m.Size-1, main))
	}
	for _, th := range st.Threads {
		name := ""
		if len(th.Frames) > 0 && th.Frames[0].Module != nil {
			name = symfile.BaseName(th.Frames[0].Module.CodeFile)
		}
		frames = append(frames, name)
	}
	return mods, frames
}

// breakpadModuleLines is moduleLines from Breakpad's -m output.
func breakpadModuleLines(out string, threads int) (mods, frames []string) {
	frames = make([]string, threads)
	for _, l := range strings.Split(out, "\n") {
		fs := strings.Split(l, "|")
		switch {
		case fs[0] == "Module" && len(fs) == 8:
			mods = append(mods, strings.Join([]string{fs[1], fs[5], fs[6], fs[7]}, "|"))
		case len(fs) == 7 && fs[1] == "0":
			if i, err := strconv.Atoi(fs[0]); err == nil && i < threads {
				frames[i] = fs[2]
			}
		}
	}
	return mods, frames
}

// TestOverlappingModules: with --breakpad-compat the module list and frame
// modules equal Breakpad's on every platform: on Linux and Android the lower
// of two overlapping modules is truncated; on Windows (and Linux, when two
// modules share a base) Breakpad rejects the whole list and no frame gets a
// module. By default every platform gets Android's result (the truncation
// rule, and no rejection): the oracle's output for the same layout written as
// an Android dump.
func TestOverlappingModules(t *testing.T) {
	bin := oracle.Require(t, oracle.Stackwalk)
	dir := t.TempDir()
	var probes []uint64
	for _, base := range []uint64{0x400000, 0x500000, 0x600000, 0x700000} {
		for off := uint64(0x10); off < 0x18000; off += 0x1000 {
			probes = append(probes, base+off)
		}
	}
	oracleRun := func(name string, data []byte) (mods, frames []string) {
		path := filepath.Join(dir, name+".dmp")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, "-m", path).Output()
		if err != nil {
			t.Fatalf("%s: oracle: %v", name, err)
		}
		return breakpadModuleLines(string(out), len(probes))
	}
	wantMods, wantFrames := oracleRun("android", overlapDump(t, synth.Android, probes))
	if len(wantMods) != 6 || !slices.Contains(wantFrames, "f") || !slices.Contains(wantFrames, "b") {
		t.Fatalf("Breakpad on Android: modules %q, frames %q; want 6 modules (no d, no duplicate a), frames in b and f", wantMods, wantFrames)
	}
	for _, osv := range []synth.OS{synth.Linux, synth.Android, synth.Windows, synth.MacOS} {
		name := fmt.Sprint(osv)
		data := overlapDump(t, osv, probes)
		bpMods, bpFrames := oracleRun(name, data)
		gotMods, gotFrames := moduleLines(t, data, Options{Mode: walker.Breakpad})
		if !slices.Equal(gotMods, bpMods) || !slices.Equal(gotFrames, bpFrames) {
			t.Errorf("%s compat:\n got %q %q\nwant %q %q (Breakpad)", name, gotMods, gotFrames, bpMods, bpFrames)
		}
		if osv != synth.Android && len(bpMods) != 0 {
			t.Errorf("%s: Breakpad listed %q; it rejects this list off Android", name, bpMods)
		}
		gotMods, gotFrames = moduleLines(t, data, Options{})
		if !slices.Equal(gotMods, wantMods) || !slices.Equal(gotFrames, wantFrames) {
			t.Errorf("%s default:\n got %q %q\nwant %q %q (Breakpad on Android)", name, gotMods, gotFrames, wantMods, wantFrames)
		}
	}
}
