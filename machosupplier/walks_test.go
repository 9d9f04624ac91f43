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
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/machofile"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
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
	frames, _ := physical(t, testdata+arch+"/crash.dmp", sup)
	return frames
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

// physical is walk's frames without the inlined ones, with their trust.
func physical(t *testing.T, dump string, sup symfile.Supplier) ([]frame, []walker.Trust) {
	d, err := minidump.Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := processor.Process(d, sup, processor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []frame
	var trust []walker.Trust
	for _, f := range st.Threads[0].Frames {
		if f.Trust == walker.TrustInline {
			continue
		}
		pc, _ := f.Context.IP()
		out = append(out, frame{f.Function, pc})
		trust = append(trust, f.Trust)
	}
	return out, trust
}

// TestWalkSymbolicFromMachO walks a synthetic macOS dump of Sentry
// symbolic's x86_64 fixture (testdata/macos/symbolic: main constructing
// an ExceptionHandler, down to MacStringUtils::ConvertToString, the stack
// laid out from llvm-objdump's disassembly) from the Mach-O and dSYM alone
// and from Breakpad's Mac dump_syms .sym of the same binary (crash.sym),
// with our walker and with Breakpad's: the same frames, at the pcs by
// construction. From the Mach-O every caller is found by CFI (compact
// unwind: frameless, one of indirect stack size); Breakpad's .sym has no
// CFI for these functions (its dump_syms reads __eh_frame only), so both
// walkers find them by scanning this clean stack.
func TestWalkSymbolicFromMachO(t *testing.T) {
	const shared = "../../shared/corpus/symbolic/macos/"
	if _, err := os.Stat(shared + "crash.sym"); err != nil {
		t.Skipf("../shared is absent: %v", err)
	}
	dump := testdata + "symbolic/crash.dmp"
	var want []uint64
	for _, f := range truth(t, "symbolic") {
		want = append(want, f.pc)
	}
	macho, machoTrust := physical(t, dump, New(&Locator{Roots: []string{shared}}))
	store := t.TempDir()
	dir := filepath.Join(store, "crash", "67E9247C814E392BA027DBDE6748FCBF0")
	link(t, shared+"crash.sym", filepath.Join(dir, "crash.sym"))
	sym, _ := physical(t, dump, symfile.NewDirSupplier(store))
	pcs := func(fs []frame) (out []uint64) {
		for _, f := range fs {
			out = append(out, f.pc)
		}
		return out
	}
	if fmt.Sprint(pcs(macho)) != fmt.Sprint(want) || fmt.Sprint(pcs(sym)) != fmt.Sprint(want) {
		t.Fatalf("pcs:\n Mach-O     %x\n crash.sym  %x\n truth      %x", pcs(macho), pcs(sym), want)
	}
	for i := range macho {
		if macho[i].fn != sym[i].fn {
			t.Errorf("frame %d: %q from the Mach-O, %q from crash.sym", i, macho[i].fn, sym[i].fn)
		}
		if i > 0 && machoTrust[i] != walker.TrustCFI {
			t.Errorf("frame %d found by %v from the Mach-O, not CFI", i, machoTrust[i])
		}
	}
	bp, ok := oracle.Lookup("minidump_stackwalk")
	if !ok {
		t.Skip("Breakpad's minidump_stackwalk not installed: not compared")
	}
	out, err := exec.Command(bp, "-m", dump, store).Output()
	if err != nil {
		t.Fatalf("minidump_stackwalk: %v", err)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Split(l, "|"); len(f) == 7 && f[0] == "0" {
			names = append(names, f[3])
		}
	}
	var ours []string
	for _, f := range macho {
		ours = append(ours, f.fn)
	}
	if strings.Join(names, "\n") != strings.Join(ours, "\n") {
		t.Errorf("Breakpad's frames:\n%s\nours from the Mach-O:\n%s", strings.Join(names, "\n"), strings.Join(ours, "\n"))
	}
}
