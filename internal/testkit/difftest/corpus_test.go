package difftest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// corpusDump is a dump of the shared corpus, the symbol roots it is
// walked with (none: without symbols), and gdb's backtrace of the core of
// the same crash, where the corpus has one.
type corpusDump struct {
	name  string
	dump  string
	roots []string
	gdb   string
	// expected is Breakpad's -m output as the corpus recorded it (by the
	// Breakpad its README names, newer than the oracle binary, which
	// cannot read x86 XSTATE contexts); "": run the oracle.
	expected string
}

// sharedCorpusDumps lists every minidump of ../shared/corpus with the
// symbols its READMEs pair it with; the generated ones also without
// symbols. (Breakpad's microdumps are left out: Breakpad's
// minidump_stackwalk does not read them.)
func sharedCorpusDumps(t *testing.T) []corpusDump {
	var out []corpusDump
	bp := corpus.Shared(t, "corpus", "breakpad")
	dumps, _ := filepath.Glob(filepath.Join(bp, "dumps", "*.dmp"))
	for _, d := range dumps {
		name := strings.TrimSuffix(filepath.Base(d), ".dmp")
		roots := []string{filepath.Join(bp, "symbols")}
		if name == "linux_inline" {
			roots = append(roots, filepath.Join(bp, "symbols-extra"))
		}
		out = append(out, corpusDump{name: "breakpad/" + name, dump: d, roots: roots,
			expected: filepath.Join(bp, "expected", name+".machine.txt")})
	}
	gen := filepath.Join(filepath.Dir(bp), "breakpad-generated")
	dumps, _ = filepath.Glob(filepath.Join(gen, "dumps", "*.dmp"))
	for _, d := range dumps {
		name := strings.TrimSuffix(filepath.Base(d), ".dmp")
		g := filepath.Join(gen, "gdb", name+".gdb.txt")
		if _, err := os.Stat(g); err != nil {
			g = ""
		}
		exp := filepath.Join(gen, "expected", name)
		out = append(out,
			corpusDump{name: "generated/" + name, dump: d, roots: []string{filepath.Join(gen, "symbols")}, gdb: g, expected: exp + ".machine.txt"},
			corpusDump{name: "generated-nosyms/" + name, dump: d, gdb: g, expected: exp + ".nosyms.machine.txt"})
	}
	dumps, _ = filepath.Glob(filepath.Join(gen, "stress", "dumps", "*.dmp"))
	for _, d := range dumps {
		name := strings.TrimSuffix(filepath.Base(d), ".dmp")
		out = append(out,
			corpusDump{name: "stress/" + name, dump: d, roots: []string{filepath.Join(gen, "stress", "symbols"), filepath.Join(gen, "symbols")},
				expected: filepath.Join(gen, "stress", "expected", name+".machine.txt")},
			corpusDump{name: "stress-nosyms/" + name, dump: d})
	}
	rm := filepath.Join(filepath.Dir(bp), "rust-minidump", "testdata")
	dumps, _ = filepath.Glob(filepath.Join(rm, "*.dmp"))
	for _, d := range dumps {
		out = append(out, corpusDump{name: "rust-minidump/" + strings.TrimSuffix(filepath.Base(d), ".dmp"), dump: d,
			roots: []string{filepath.Join(rm, "symbols")}})
	}
	return out
}

// breakpadThreads returns each thread's frame lines
// (module|function|file|line|offset) of Breakpad's -m output for the dump:
// the corpus's, or a run of the oracle binary bin.
func breakpadThreads(bin string, c corpusDump) (map[int][]string, error) {
	var out []byte
	var err error
	if c.expected != "" {
		out, err = os.ReadFile(c.expected)
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	if c.expected == "" || err != nil {
		out, err = exec.Command(bin, append([]string{"-m", c.dump}, c.roots...)...).Output()
		if err != nil && len(out) == 0 {
			return nil, err
		}
	}
	threads := map[int][]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 7 {
			continue
		}
		th, err1 := strconv.Atoi(f[0])
		_, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			continue
		}
		threads[th] = append(threads[th], strings.Join(f[2:], "|"))
	}
	return threads, nil
}

// frameLine renders a frame as Breakpad's -m output does.
func frameLine(f *processor.Frame) string {
	strip := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", ""), "\n", "") }
	addr := f.ReturnAddress()
	switch {
	case f.Module == nil:
		return fmt.Sprintf("||||0x%x", addr)
	case f.Function == "":
		return fmt.Sprintf("%s||||0x%x", strip(symfile.BaseName(f.Module.CodeFile)), addr-f.Module.Base)
	case f.SourceFile == "":
		return fmt.Sprintf("%s|%s|||0x%x", strip(symfile.BaseName(f.Module.CodeFile)), strip(f.Function), addr-f.FunctionBase)
	}
	return fmt.Sprintf("%s|%s|%s|%d|0x%x", strip(symfile.BaseName(f.Module.CodeFile)), strip(f.Function), strip(f.SourceFile),
		f.SourceLine, addr-f.SourceLineBase)
}

var (
	gdbThreadLine = regexp.MustCompile(`^Thread \d+ \(.*LWP (\d+)\)`)
	gdbFrameLine  = regexp.MustCompile(`^#\d+\s+0x([0-9a-f]+) in `)
)

// gdbPCs reads gdb's `thread apply all bt` text: LWP -> the frames' pcs.
func gdbPCs(t *testing.T, path string) map[uint32]map[uint64]bool {
	out := map[uint32]map[uint64]bool{}
	if path == "" {
		return out
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cur map[uint64]bool
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := gdbThreadLine.FindStringSubmatch(sc.Text()); m != nil {
			lwp, _ := strconv.ParseUint(m[1], 10, 32)
			cur = map[uint64]bool{}
			out[uint32(lwp)] = cur
			continue
		}
		if m := gdbFrameLine.FindStringSubmatch(sc.Text()); m != nil && cur != nil {
			pc, _ := strconv.ParseUint(m[1], 16, 64)
			cur[pc] = true
		}
	}
	return out
}

// justification says what evidence stands behind a frame our walk has and
// Breakpad's has not: gdb's backtrace of the same crash, the symbol
// file's unwind rules or symbols, the dump's code, or the stack's own
// records (a realigned frame's saved stack pointer, checked by the return
// address's copy; the kernel's signal frame, checked by its selectors).
// "" when none: the frame would be invented.
func justification(f *processor.Frame, gdb map[uint64]bool) string {
	if gdb[f.ReturnAddress()] {
		return "gdb"
	}
	switch f.Rule {
	case walker.RuleContext:
		return "the dump: the thread's context (named by its own symbol lookup)"
	case walker.RuleCFI, walker.RuleStackWin:
		return "symbols: the symbol file's unwind rules"
	case walker.RuleModulePrologue:
		return "code: the prologue in the module's file"
	case walker.RuleScanChecked:
		return "symbols: a scanned word the symbols and the caller's CFI accept"
	case walker.RuleScanCallSite:
		return "code: a scanned word after a direct call to the callee"
	case walker.RuleScanAfterCall:
		return "code: a scanned word after a call instruction"
	case walker.RulePrologue, walker.RuleLeafReturn, walker.RuleRecordOwnerCFI:
		return "code: the function's prologue or the leaf's return"
	case walker.RuleRealigned:
		return "stack: a realigned frame's saved stack pointer"
	case walker.RuleSignal:
		return "stack: the kernel's signal frame"
	}
	return ""
}

// TestCorpusAddedFrames: over the whole shared corpus, every frame the
// default walk has and Breakpad's has not (per thread, by its -m line) is
// justified by gdb's backtrace of the same crash, by the symbols or by the
// dump's code (justification); an inlined frame by its physical frame. It
// logs how many of each and fails on a frame with no such evidence: the
// walker never invents a frame.
func TestCorpusAddedFrames(t *testing.T) {
	bin := oracle.Require(t, oracle.Stackwalk)
	counts := map[string]int{}
	var dumps, added int
	for _, c := range sharedCorpusDumps(t) {
		want, err := breakpadThreads(bin, c)
		if err != nil {
			t.Logf("%s: Breakpad: %v", c.name, err)
			continue
		}
		d, err := minidump.Open(c.dump)
		if err != nil {
			continue // the corpus's broken dumps: Breakpad's output above has no frames either
		}
		var sup symfile.Supplier
		if len(c.roots) > 0 {
			sup = symcompress.NewDirSupplier(c.roots...)
		}
		st, err := processor.Process(d, sup, processor.Options{Trace: true})
		d.Close()
		if err != nil {
			continue
		}
		dumps++
		gdb := gdbPCs(t, c.gdb)
		threads, _ := st.BreakpadThreads()
		for i, th := range threads {
			theirs := map[string]int{}
			for _, l := range want[i] {
				theirs[l]++
			}
			frames := th.Frames
			for j, f := range frames {
				l := frameLine(f)
				if theirs[l] > 0 {
					theirs[l]--
					continue
				}
				added++
				phys := f
				for k := j; phys.Trust == walker.TrustInline && k+1 < len(frames); k++ {
					phys = frames[k+1]
				}
				why := justification(phys, gdb[th.ID])
				if why == "" {
					t.Errorf("%s thread %d frame %d %s (%s, rule %s): Breakpad has no such frame, and neither gdb, the symbols nor the code justify it",
						c.name, i, j, l, phys.Trust, phys.Rule)
					why = "none"
				} else {
					t.Logf("%s thread %d frame %d %s (%s): %s", c.name, i, j, l, phys.Rule, why)
				}
				counts[why]++
			}
		}
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%4d added frames justified by %s", counts[k], k)
	}
	t.Logf("%d dumps walked; %d frames ours has and Breakpad's has not", dumps, added)
	if dumps == 0 {
		t.Fatal("no dump of the shared corpus walked")
	}
}
