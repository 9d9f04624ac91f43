package arm64_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// TestLeafWithoutCFI: testdata/leaf crashes in asm_leaf, a leaf without CFI
// that has not pushed a frame record (see leaf.c, leaf.S, gen.sh). gdb's
// backtrace of the core is asm_leaf, middle, outer, __libc_start_call_main,
// __libc_start_main_impl, _start. Breakpad (breakpad.machine.txt) returns
// through LR but takes SP from x29+16, so middle's CFI then reads the wrong
// slots: its frame 2 is the junk address 0x5500800814 and it never shows
// outer or __libc_start_call_main. The extended walker must match gdb, and
// the Breakpad mode must reproduce Breakpad's frames.
func TestLeafWithoutCFI(t *testing.T) {
	dir := filepath.Join("testdata", "leaf")
	syms := leafSymbols(t, dir)
	gdb := gdbFrames(t, filepath.Join(dir, "gdb.frames.txt"))

	ext := walkLeaf(t, dir, syms, false)
	if len(ext) != len(gdb) {
		t.Errorf("extended walk has %d frames, gdb %d", len(ext), len(gdb))
	}
	for i := 0; i < len(ext) && i < len(gdb); i++ {
		if ext[i].pc != gdb[i].pc || ext[i].function != gdb[i].function {
			t.Errorf("frame %d: %#x %s, gdb %#x %s", i, ext[i].pc, ext[i].function, gdb[i].pc, gdb[i].function)
		}
	}
	if len(ext) > 1 && ext[1].trust != walker.TrustLeaf {
		t.Errorf("frame 1 found by %v, want a leaf return", ext[1].trust)
	}

	bp := walkLeaf(t, dir, syms, true)
	want := breakpadFrames(t, filepath.Join(dir, "breakpad.machine.txt"))
	if len(bp) != len(want) {
		t.Fatalf("Breakpad mode: %d frames, Breakpad %d", len(bp), len(want))
	}
	for i := range bp {
		got := bp[i].function + "|" + strconv.FormatUint(bp[i].offset, 16)
		if got != want[i] {
			t.Errorf("Breakpad mode frame %d: %s, Breakpad %s", i, got, want[i])
		}
	}
	t.Logf("frames matching gdb (of %d): extended %d, Breakpad %d", len(gdb), matchPrefix(ext, gdb), matchPrefix(bp, gdb))
}

type leafFrame struct {
	pc       uint64
	function string
	offset   uint64 // from the line, else the function, else the module, as -m prints
	trust    walker.Trust
}

func walkLeaf(t *testing.T, dir, syms string, breakpad bool) []leafFrame {
	t.Helper()
	d, err := minidump.Open(filepath.Join(dir, "leaf.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	opts := processor.Options{}
	if breakpad {
		opts = processor.Options{Mode: walker.Breakpad}
	}
	st, err := processor.Process(d, symcompress.NewDirSupplier(syms), opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []leafFrame
	for _, f := range st.Threads[0].Frames {
		pc, _ := f.Context.IP()
		lf := leafFrame{pc: pc, function: f.Function, trust: f.Trust}
		switch {
		case f.Function != "" && f.SourceFile != "":
			lf.offset = f.LineOffset()
		case f.Function != "":
			lf.offset = f.FunctionOffset()
		case f.Module != nil:
			lf.offset = f.ModuleOffset()
		default:
			lf.offset = f.ReturnAddress()
		}
		out = append(out, lf)
	}
	return out
}

// leafSymbols lays leaf.sym.gz out as a symbol store.
func leafSymbols(t *testing.T, dir string) string {
	t.Helper()
	id, err := os.ReadFile(filepath.Join(dir, "debug_id.txt"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	sub := filepath.Join(root, "leaf", strings.TrimSpace(string(id)))
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "leaf.sym.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "leaf.sym.gz"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// gdbFrames reads the first thread (the crashed one) of a gdb_frames.py listing.
func gdbFrames(t *testing.T, path string) []leafFrame {
	t.Helper()
	threads := oracle.ReadGDBFrames(t, path)
	if len(threads) == 0 {
		t.Fatalf("%s: no threads", path)
	}
	var out []leafFrame
	for _, f := range threads[0].Frames {
		out = append(out, leafFrame{pc: f.PC, function: f.Function})
	}
	return out
}

// breakpadFrames reads "function|offset" of thread 0 from -m output.
func breakpadFrames(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, f := range oracle.ReadMachineFrames(t, path) {
		if f.Thread == 0 {
			out = append(out, f.Function+"|"+strconv.FormatUint(f.Offset, 16))
		}
	}
	return out
}

func matchPrefix(a, gdb []leafFrame) int {
	n := 0
	for n < len(a) && n < len(gdb) && a[n].pc == gdb[n].pc {
		n++
	}
	return n
}
