package machosupplier

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/dumpsyms"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/machofile"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// frame is a frame by name and pc (the return address for callers).
type frame struct {
	fn string
	pc uint64
}

func (f frame) String() string { return fmt.Sprintf("%s@%#x", f.fn, f.pc) }

// truth reads crash.truth: the frames by construction, which
// scripts/gen-testdata/macosdump derives from llvm-objdump's disassembly.
func truth(t *testing.T, arch string) []frame {
	data, err := os.ReadFile(testdata + arch + "/crash.truth")
	if err != nil {
		t.Fatal(err)
	}
	var out []frame
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(l)
		pc, err := strconv.ParseUint(f[1], 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, frame{f[0], pc})
	}
	return out
}

func walk(t *testing.T, arch string, sup symfile.Supplier) []frame {
	d, err := minidump.Open(testdata + arch + "/crash.dmp")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := processor.Process(d, sup, processor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []frame
	for _, f := range st.Threads[0].Frames {
		pc, _ := f.Context.IP()
		out = append(out, frame{f.Function, pc})
	}
	return out
}

// symStore writes our dump_syms output for the test program into a
// Breakpad symbol store: crash/ID/crash.sym.
func symStore(t *testing.T, arch string) string {
	bin := testdata + arch + "/crash"
	b, err := machofile.Open(bin, "")
	if err != nil {
		t.Fatal(err)
	}
	d, err := machofile.Open(machofile.DSYMFile(bin), "")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := dumpsyms.WriteMachO(&out, b, d, bin, dumpsyms.Options{}); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dir := filepath.Join(root, "crash", b.DebugID())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "crash.sym"), out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestWalkFromMachO walks the synthetic macOS dumps of the test program
// (x86_64 and arm64: RBP/frame, frameless immediate and indirect, DWARF
// mode) from the Mach-O binary and dSYM alone, from our dump_syms .sym,
// and with Breakpad's minidump_stackwalk over that .sym: all three give
// the frames by construction (crash.truth).
func TestWalkFromMachO(t *testing.T) {
	for _, arch := range []string{"x86_64", "arm64"} {
		want := fmt.Sprint(truth(t, arch))
		root := t.TempDir()
		link(t, testdata+arch+"/crash", filepath.Join(root, "crash"))
		link(t, testdata+arch+"/crash.dSYM", filepath.Join(root, "crash.dSYM"))
		if got := fmt.Sprint(walk(t, arch, New(&Locator{Roots: []string{root}}))); got != want {
			t.Errorf("%s from Mach-O/dSYM:\n got  %s\n want %s", arch, got, want)
		}
		store := symStore(t, arch)
		if got := fmt.Sprint(walk(t, arch, symfile.NewDirSupplier(store))); got != want {
			t.Errorf("%s from our .sym:\n got  %s\n want %s", arch, got, want)
		}
		bp, ok := oracle.Lookup("minidump_stackwalk")
		if !ok {
			t.Logf("Breakpad's minidump_stackwalk not installed: not compared")
			continue
		}
		out, err := exec.Command(bp, "-m", testdata+arch+"/crash.dmp", store).Output()
		if err != nil {
			t.Fatalf("%s: minidump_stackwalk: %v", arch, err)
		}
		var names []string
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Split(l, "|"); len(f) == 7 && f[0] == "0" {
				names = append(names, f[3])
			}
		}
		var wantNames []string
		for _, f := range truth(t, arch) {
			wantNames = append(wantNames, f.fn)
		}
		if strings.Join(names, " ") != strings.Join(wantNames, " ") {
			t.Errorf("%s: Breakpad's frames %v, want %v\n%s", arch, names, wantNames, out)
		}
	}
}
