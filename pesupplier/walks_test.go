package pesupplier

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

const winData = "../testdata/windows"

// windowsRoot writes the images the Windows x64 dumps need into a
// directory: wincrash.exe and the reduced Wine DLLs.
func windowsRoot(t *testing.T) string {
	dir := t.TempDir()
	exe, err := os.ReadFile(filepath.Join(winData, "x64/wincrash.exe"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"wincrash.exe": exe}
	for _, d := range []string{"ntdll", "kernel32", "kernelbase", "msvcrt"} {
		files[d+".dll"] = corpus.ReadZstd(t, filepath.Join(winData, "x64/wine", d+".dll.zst"))
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var (
	winedbgFrame  = regexp.MustCompile(`^\s*(?:=>)?(\d+) 0x([0-9a-f]+) (?:.* )?in (\S+) \(`)
	winedbgThread = regexp.MustCompile(`^Backtracing for thread ([0-9a-f]+) `)
)

// oracleFrame is a frame as winedbg prints it: the pc and the module.
type oracleFrame struct {
	PC     uint64
	Module string
}

// readWinedbg reads winedbg backtraces: by thread id (0 for a dump's
// one backtrace), the frames with the lines of inlined frames (same pc)
// merged, as the walk has one physical frame per pc.
func readWinedbg(t *testing.T, path string) map[uint32][]oracleFrame {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	out := map[uint32][]oracleFrame{}
	var tid uint32
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if m := winedbgThread.FindStringSubmatch(sc.Text()); m != nil {
			v, _ := strconv.ParseUint(m[1], 16, 32)
			tid = uint32(v)
			continue
		}
		m := winedbgFrame.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		pc, _ := strconv.ParseUint(m[2], 16, 64)
		fr := out[tid]
		if len(fr) > 0 && fr[len(fr)-1].PC == pc {
			continue
		}
		out[tid] = append(fr, oracleFrame{pc, m[3]})
	}
	return out
}

// ourFrames gives a thread's physical frames as oracleFrame, module names
// as winedbg writes them (no extension).
func ourFrames(th *processor.Thread) []oracleFrame {
	var out []oracleFrame
	for _, f := range th.Frames {
		if f.Trust == walker.TrustInline {
			continue
		}
		pc, _ := f.Context.IP()
		mod := ""
		if f.Module != nil {
			mod = strings.TrimSuffix(strings.TrimSuffix(baseNameOf(f.Module.CodeFile), ".exe"), ".dll")
		}
		out = append(out, oracleFrame{pc, mod})
	}
	return out
}

func baseNameOf(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// TestWindowsWalksMatchWinedbg walks each Windows x64 dump made here
// (scripts/gen-testdata/windows/gen.sh: clang+lld for MinGW, run by
// Wine 8) with nothing but the PE images: wincrash.exe and Wine's own
// DLLs (reduced to their unwind tables and exports), no .sym and no PDB.
// Every thread must walk to winedbg's backtrace: the crashed thread's
// read from the dump by winedbg, the others' taken by winedbg attached to
// the process when the dump was written. Frame 0 of the spinning thread
// is compared by module only (it ran on until winedbg attached). The
// cases: a NULL write in a frameless leaf (no RUNTIME_FUNCTION), in a
// function with a frame pointer (SET_FPREG), in a qsort comparator
// (through msvcrt.dll's .pdata), and a thread stopped by single steps
// inside a prolog (after two of its four codes) and inside an epilog (at
// a pop, the epilog recognised by its bytes).
func TestWindowsWalksMatchWinedbg(t *testing.T) {
	root := windowsRoot(t)
	for _, c := range []string{"leaf", "fp", "qsort", "prolog", "epilog"} {
		t.Run(c, func(t *testing.T) {
			dumpPath := filepath.Join(t.TempDir(), c+".dmp")
			if err := os.WriteFile(dumpPath, corpus.ReadZstd(t, filepath.Join(winData, "x64", c+".dmp.zst")), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := minidump.Open(dumpPath)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			sup := New([]string{root}, false)
			st, err := processor.Process(d, sup, processor.Options{Native: sup})
			if err != nil {
				t.Fatal(err)
			}
			crash := readWinedbg(t, filepath.Join(winData, "oracle", c+".winedbg-dump.txt"))[0]
			live := readWinedbg(t, filepath.Join(winData, "oracle", c+".winedbg.txt"))
			if len(st.Threads) != 3 || st.RequestingThread < 0 || len(crash) < 8 {
				t.Fatalf("%d threads, requesting %d, oracle %d frames", len(st.Threads), st.RequestingThread, len(crash))
			}
			for i, th := range st.Threads {
				got := ourFrames(th)
				want, ok := live[th.ID]
				if i == st.RequestingThread {
					want, ok = crash, true
				}
				if !ok {
					t.Errorf("thread %#x: no winedbg backtrace", th.ID)
					continue
				}
				if i != st.RequestingThread && len(got) > 0 && len(want) > 0 && got[0].Module == "wincrash" {
					got[0].PC, want[0].PC = 0, 0 // the spinner ran on
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("thread %#x (-winedbg +ours):\n%s", th.ID, diff)
				}
			}
		})
	}
}
