package pe

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const symbolicDir = "../../shared/corpus/symbolic/windows"

func openShared(t *testing.T, name string) *File {
	t.Helper()
	path := filepath.Join(symbolicDir, name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("../shared absent: %v", err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestIdentityMatchesBreakpad: the debug id, debug file and code id of
// crash.exe equal the MODULE and INFO CODE_ID lines Breakpad's Windows
// dump_syms wrote for it (crash.sym in symbolic's corpus).
func TestIdentityMatchesBreakpad(t *testing.T) {
	f := openShared(t, "crash.exe")
	sym, err := os.ReadFile(filepath.Join(symbolicDir, "crash.sym"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(sym), "\n", 3)
	cv, err := f.CodeView()
	if err != nil || cv == nil {
		t.Fatalf("CodeView: %v, %v", cv, err)
	}
	got := []string{
		fmt.Sprintf("MODULE windows x86 %s %s", cv.DebugID(), cv.DebugFile()),
		fmt.Sprintf("INFO CODE_ID %s crash.exe", f.CodeID()),
	}
	if diff := cmp.Diff(lines[:2], got); diff != "" {
		t.Errorf("identity (-Breakpad +ours):\n%s", diff)
	}
	if f.Machine != MachineI386 || f.Is64 {
		t.Errorf("machine %#x is64 %v", f.Machine, f.Is64)
	}
}

var regNames = [16]string{"RAX", "RCX", "RDX", "RBX", "RSP", "RBP", "RSI", "RDI",
	"R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15"}

// readobjCode formats a code as llvm-readobj --unwind prints it.
func readobjCode(u *UnwindInfo, c UnwindCode) string {
	s := fmt.Sprintf("0x%02X: %s", c.CodeOffset, strings.TrimPrefix(c.Op.String(), "UWOP_"))
	switch c.Op {
	case OpPushNonvol:
		s += " reg=" + regNames[c.Info]
	case OpAllocLarge, OpAllocSmall:
		s += fmt.Sprintf(" size=%d", c.Value)
	case OpSetFPReg:
		s += fmt.Sprintf(" reg=%s, offset=0x%X", regNames[u.FrameRegister], u.FrameOffset)
	case OpSaveNonvol, OpSaveNonvolFar:
		s += fmt.Sprintf(" reg=%s, offset=0x%X", regNames[c.Info], c.Value)
	case OpSaveXMM128, OpSaveXMM128Far:
		s += fmt.Sprintf(" reg=XMM%d, offset=0x%X", c.Info, c.Value)
	case OpPushMachFrame:
		s += map[bool]string{false: " errcode=no", true: " errcode=yes"}[c.Info == 1]
	}
	return s
}

// readobjFunctions reads llvm-readobj --unwind output: for each
// RuntimeFunction, its start, end and unwind info addresses, prolog size,
// frame register and codes, one string each.
func readobjFunctions(t *testing.T, path string) [][]string {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out [][]string
	inCodes := false
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "RuntimeFunction {":
			out = append(out, nil)
		case strings.HasPrefix(l, "StartAddress:"), strings.HasPrefix(l, "EndAddress:"),
			strings.HasPrefix(l, "UnwindInfoAddress:"), strings.HasPrefix(l, "PrologSize:"),
			strings.HasPrefix(l, "FrameRegister:"), strings.HasPrefix(l, "Version:"):
			out[len(out)-1] = append(out[len(out)-1], l)
		case l == "UnwindCodes [":
			inCodes = true
		case l == "]":
			inCodes = false
		case inCodes:
			out[len(out)-1] = append(out[len(out)-1], l)
		}
	}
	return out
}

// ourFunctions formats what we decode as readobjFunctions reads it.
func ourFunctions(t *testing.T, f *File) [][]string {
	fns, err := f.RuntimeFunctions()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, rf := range fns {
		u, err := f.UnwindInfoAt(rf.UnwindInfo)
		if err != nil {
			t.Fatalf("%#x: %v", rf.Begin, err)
		}
		fr := "-"
		if u.FrameRegister != 0 {
			fr = regNames[u.FrameRegister]
		}
		rec := []string{
			fmt.Sprintf("StartAddress: (0x%X)", f.ImageBase+uint64(rf.Begin)),
			fmt.Sprintf("EndAddress: (0x%X)", f.ImageBase+uint64(rf.End)),
			fmt.Sprintf("UnwindInfoAddress: (0x%X)", f.ImageBase+uint64(rf.UnwindInfo)),
			fmt.Sprintf("Version: %d", u.Version),
			fmt.Sprintf("PrologSize: %d", u.PrologSize),
			"FrameRegister: " + fr,
		}
		for _, c := range u.Codes {
			rec = append(rec, readobjCode(u, c))
		}
		out = append(out, rec)
	}
	return out
}

// TestUnwindCodesMatchReadobj: every RUNTIME_FUNCTION and unwind code of
// CrashWithException.exe (MSVC) as llvm-readobj --unwind decodes them
// (testdata/windows/oracle).
func TestUnwindCodesMatchReadobj(t *testing.T) {
	f := openShared(t, "CrashWithException.exe")
	want := readobjFunctions(t, "../testdata/windows/oracle/CrashWithException.exe.readobj-unwind.txt")
	got := ourFunctions(t, f)
	if len(want) < 40 {
		t.Fatalf("oracle has %d functions", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unwind info (-readobj +ours):\n%s", diff)
	}
}

func TestCodeIDAndDebugID(t *testing.T) {
	f := openShared(t, "CrashWithException.exe")
	cv, err := f.CodeView()
	if err != nil {
		t.Fatal(err)
	}
	// llvm-readobj --coff-debug-directory: PDBGUID (FB C5 35 F5 E8 2A B8 4B
	// AA 20 6C 30 BE 56 6C 5A), PDBAge 1; TimeDateStamp 0x5C9E0959.
	if got, want := cv.DebugID(), "F535C5FB2AE84BB8AA206C30BE566C5A1"; got != want {
		t.Errorf("debug id %s, want %s", got, want)
	}
	if !strings.HasPrefix(f.CodeID(), "5C9E0959") || cv.DebugFile() != "CrashWithException.pdb" {
		t.Errorf("code id %s, debug file %s", f.CodeID(), cv.DebugFile())
	}
}

func TestTruncatedImagesGiveFormatErrors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(symbolicDir, "CrashWithException.exe"))
	if err != nil {
		t.Skipf("../shared absent: %v", err)
	}
	for _, n := range []int{0, 2, 0x3c, 0x40, 0x100, 0x180, 0x200, 0x400, 0x1000, len(data) / 2} {
		f, err := NewFile(strings.NewReader(string(data[:n])), int64(n))
		if err == nil {
			_, err = f.RuntimeFunctions()
			if err == nil {
				_, err = f.CodeView()
			}
		}
		var fe *FormatError
		if err != nil && !errors.As(err, &fe) {
			t.Errorf("%d bytes: untyped error %T %v", n, err, err)
		}
		if n < 0x400 && err == nil {
			t.Errorf("%d bytes: no error", n)
		}
	}
}
