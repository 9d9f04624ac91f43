package pdbsupplier

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
	"github.com/minidump-stackwalk/minidump-stackwalk/pesupplier"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

const winX64 = "../testdata/windows/x64"

// winedbgLine is a frame of winedbg's backtrace: its pc, function name
// (when winedbg has one) and module.
var winedbgLine = regexp.MustCompile(`^\s*(?:=>)?\d+ 0x([0-9a-f]+) (?:([A-Za-z_][A-Za-z0-9_]*)\+0x[0-9a-f]+.* )?in (\S+) \(`)

// winedbgFrame is a physical frame of winedbg's backtrace: "pc module",
// and the function winedbg names there, the outermost of those inlined at
// the pc ("" when it names none).
type winedbgFrame struct{ At, Function string }

// winedbgDumpFrames reads winedbg's backtrace of a dump's crashed thread
// (testdata/windows/oracle/CASE.winedbg-dump.txt), the lines of inlined
// frames (the same pc again) merged.
func winedbgDumpFrames(t *testing.T, c string) []winedbgFrame {
	fh, err := os.Open(filepath.Join("../testdata/windows/oracle", c+".winedbg-dump.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []winedbgFrame
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		m := winedbgLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		f := winedbgFrame{"0x" + strings.TrimLeft(m[1], "0") + " " + m[3], m[2]}
		if n := len(out); n > 0 && out[n-1].At == f.At {
			out[n-1].Function = f.Function
			continue
		}
		out = append(out, f)
	}
	return out
}

// exportNames lists the names the PE image at path exports.
func exportNames(t *testing.T, path string) map[string]bool {
	f, err := pe.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exps, err := f.Exports()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range exps {
		names[e.Name] = true
	}
	return names
}

// TestWindowsWalksFromPDB walks the crashed thread of each Windows x64
// dump made here (testdata/windows, scripts/gen-testdata/windows/gen.sh:
// clang -g -gcodeview for MinGW, lld writes the PDB) with wincrash.pdb
// for symbols and the PE images for unwinding, no .sym. The physical
// frames must be winedbg's (pc and module). winedbg names no frame of
// wincrash.exe (its dbghelp does not read lld's PDB), so there the names'
// oracle is llvm-pdbutil: every frame inside a procedure it lists
// (S_GPROC32 for main, S_LPROC32 for the static functions) must be named
// after it, not after the public symbol before it (main + 0x6fc for
// step_mid when the PDB had no procedure records). In Wine's DLLs, whose
// debug information is not here, frames winedbg names with a name the
// DLL exports (BaseThreadInitThunk, RtlUserThreadStart, qsort, qsort_s)
// must have that name; its static functions (quick_sort) are left out.
func TestWindowsWalksFromPDB(t *testing.T) {
	root := t.TempDir()
	put(t, filepath.Join(root, "wincrash.pdb"), corpus.ReadZstd(t, filepath.Join(winX64, "wincrash.pdb.zst")))
	procs := oracle.PDBProcs(t, filepath.Join(root, "wincrash.pdb"))
	exe, err := os.ReadFile(filepath.Join(winX64, "wincrash.exe"))
	if err != nil {
		t.Fatal(err)
	}
	put(t, filepath.Join(root, "wincrash.exe"), exe)
	exports := map[string]map[string]bool{}
	for _, d := range []string{"ntdll", "kernel32", "kernelbase", "msvcrt"} {
		put(t, filepath.Join(root, d+".dll"), corpus.ReadZstd(t, filepath.Join(winX64, "wine", d+".dll.zst")))
		exports[d] = exportNames(t, filepath.Join(root, d+".dll"))
	}
	pe := pesupplier.New([]string{root}, false)
	sup := symfile.ChainSupplier{New(root), pe}
	for _, c := range []string{"leaf", "fp", "qsort", "prolog", "epilog"} {
		t.Run(c, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c+".dmp")
			put(t, path, corpus.ReadZstd(t, filepath.Join(winX64, c+".dmp.zst")))
			d, err := minidump.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			st, err := processor.Process(d, sup, processor.Options{Native: pe})
			if err != nil {
				t.Fatal(err)
			}
			if st.RequestingThread < 0 {
				t.Fatal("no crashed thread")
			}
			want := winedbgDumpFrames(t, c)
			var got []*processor.Frame
			for _, f := range st.Threads[st.RequestingThread].Frames {
				if f.Trust != walker.TrustInline {
					got = append(got, f)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d frames, winedbg %d", len(got), len(want))
			}
			named := 0
			for i := 0; i < len(got) && i < len(want); i++ {
				named += checkFrame(t, got[i], want[i], procs, exports)
			}
			if named < 5 {
				t.Errorf("%d frames named after llvm-pdbutil's procedures or winedbg's exports", named)
			}
		})
	}
}

// checkFrame compares a physical frame with winedbg's and its name with
// the procedure llvm-pdbutil lists around it (wincrash.exe) or the
// exported name winedbg gives it (Wine's DLLs). It returns the number of
// names checked: 0 or 1.
func checkFrame(t *testing.T, f *processor.Frame, want winedbgFrame, procs []oracle.PDBProc, exports map[string]map[string]bool) int {
	t.Helper()
	at := frameOf(f)
	if at != want.At {
		t.Errorf("frame %s, winedbg %s", at, want.At)
		return 0
	}
	mod := strings.Fields(at)[1]
	if mod != "wincrash" {
		if want.Function == "" || !exports[mod][want.Function] {
			return 0
		}
		if f.Function != want.Function {
			t.Errorf("frame %s: %q, winedbg %q", at, f.Function, want.Function)
		}
		return 1
	}
	rva := f.Instruction - f.Module.Base
	for _, p := range procs {
		if rva >= uint64(p.RVA) && rva-uint64(p.RVA) < uint64(p.Size) {
			if f.Function != p.Name || f.IsPublic {
				t.Errorf("frame %s: %q (public %v), llvm-pdbutil: in %s %s", at, f.Function, f.IsPublic, p.Kind, p.Name)
			}
			return 1
		}
	}
	return 0
}

// frameOf writes a physical frame as winedbgFrame.At: "pc module".
func frameOf(f *processor.Frame) string {
	pc, _ := f.Context.IP()
	mod := "?"
	if f.Module != nil {
		mod = f.Module.CodeFile[strings.LastIndexAny(f.Module.CodeFile, `/\`)+1:]
		mod = strings.TrimSuffix(strings.TrimSuffix(mod, ".exe"), ".dll")
	}
	return "0x" + strconv.FormatUint(pc, 16) + " " + mod
}
