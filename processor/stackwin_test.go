package processor

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// gluedSupplier serves test_app.pdb's symbols from glued and every other
// module's from the directory supplier.
type gluedSupplier struct {
	symfile.Supplier
	glued  *symfile.File
	served *int
}

func (s gluedSupplier) Symbols(m symfile.ModuleKey) (*symfile.File, error) {
	if strings.HasSuffix(m.DebugFile, "test_app.pdb") {
		*s.served++
		return s.glued, nil
	}
	return s.Supplier.Symbols(m)
}

// STACK WIN programs as MSVC's LTO builds write them glue "=" to the next
// token ("$T0 $ebp =$eip $T0 4 + ^ =$ebp ..."); Breakpad's evaluator
// splits them (postfix_evaluator-inl.h, EvaluateInternal) and marks $eip
// and $esp assigned, and so does the x86 walker (symfile.ProgramTokens).
// Breakpad's test_app.sym with every STACK WIN program so glued walks
// Breakpad's Windows x86 dumps exactly as the file as written: in Breakpad
// mode as Breakpad's -m output (expected/*.machine.txt), by default as
// our walk of the spaced file. Before, the walker marked only $T0
// assigned, fell back to scanning and took a stale word for frame 2 of
// minidump2.dmp (ntdll.dll+0x131dc instead of __tmainCRTStartup).
func TestStackWinGluedAssignment(t *testing.T) {
	bp := corpus.Shared(t, "corpus", "breakpad")
	syms := filepath.Join(bp, "symbols")
	text, err := os.ReadFile(filepath.Join(syms, "test_app.pdb", "5A9832E5287241C1838ED98914E9B7FF1", "test_app.sym"))
	if err != nil {
		t.Fatal(err)
	}
	programs := regexp.MustCompile(`(?m)^STACK WIN 4 .*$`)
	glue := regexp.MustCompile(` = \$`)
	gluedText := programs.ReplaceAllFunc(text, func(line []byte) []byte { return glue.ReplaceAll(line, []byte(" =$")) })
	if n := len(regexp.MustCompile(` =\$eip`).FindAll(gluedText, -1)); n < 100 {
		t.Fatalf("only %d glued programs", n)
	}
	glued, err := symfile.NewFile(gluedText, "test_app.sym")
	if err != nil {
		t.Fatal(err)
	}
	dir := symcompress.NewDirSupplier(syms)
	for _, name := range []string{"minidump2", "minidump_32bit_crash_addr"} {
		d, err := minidump.Open(filepath.Join(bp, "dumps", name+".dmp"))
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []walker.Mode{walker.Extended, walker.Breakpad} {
			spaced, _ := Process(d, dir, Options{Mode: mode})
			served := 0
			withGlue, _ := Process(d, gluedSupplier{dir, glued, &served}, Options{Mode: mode})
			if served == 0 {
				t.Fatalf("%s: the glued symbols were never asked for", name)
			}
			for i, th := range withGlue.Threads {
				if got, want := frameKeys(th.Frames), frameKeys(spaced.Threads[i].Frames); got != want {
					t.Errorf("%s %s thread %d: glued programs walk\n%s\nthe file as written\n%s", name, mode, i, got, want)
				}
			}
			if mode != walker.Breakpad {
				continue
			}
			want := oracle.ReadMachineFrames(t, filepath.Join(bp, "expected", name+".machine.txt"))
			threads, _ := withGlue.BreakpadThreads()
			n := 0
			for _, th := range threads {
				n += len(th.Frames)
			}
			if n != len(want) {
				t.Errorf("%s: %d frames in Breakpad mode, Breakpad's -m has %d", name, n, len(want))
				continue
			}
			k := 0
			for ti, th := range threads {
				for fi, f := range th.Frames {
					if w := want[k]; w.Thread != ti || w.Frame != fi || w.Function != f.Function {
						t.Errorf("%s thread %d frame %d: %q, Breakpad's -m %+v", name, ti, fi, f.Function, w)
					}
					k++
				}
			}
		}
		d.Close()
	}
}
