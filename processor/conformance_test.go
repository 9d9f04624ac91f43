package processor

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
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// conformanceCase is one Breakpad run: a dump, the symbol roots it was run
// with (none: no symbol supplier), and Breakpad's -m and human outputs.
type conformanceCase struct {
	set      string
	dump     string
	roots    []string
	machine  string
	human    string // may be "" when there is none
	skipArch bool
}

// knownDifference is a frame where we deliberately differ from Breakpad
// because Breakpad is wrong; the evidence is in why.
type knownDifference struct {
	set, dump string
	thread    int // Breakpad's thread number
	fromFrame int // Breakpad's frames from this one on are wrong
	kind      diffKind
}

type diffKind int

const (
	// pastEntry: Breakpad walks on past the program's entry function
	// _start, which the kernel entered with no return address; its next
	// "frames" are junk (a stack address as IP, then a scanned hit in the
	// vDSO). Evidence: gdb's backtrace of the core of the same crash ends
	// at _start with the same address (checked by the test).
	pastEntry diffKind = iota
	// imageBase: node's image is four module entries; Breakpad looks up
	// symbols relative to the entry containing the address (0xb72000)
	// while node.sym's addresses are relative to the image start
	// (0x400000), so it misnames frames and, with the wrong CFI, walks
	// differently from there on. Evidence: checked by the test against
	// node.sym (see TestNodeImageBaseEvidence).
	imageBase
	// realigned: a frame whose function realigned its stack (GCC's DRAP:
	// i386 main) has CFI dump_syms cannot express; Breakpad follows its
	// frame record with the realigned stack pointer and walks junk from
	// its caller on, we take the saved pre-alignment stack pointer
	// (walker.RuleRealigned). Likewise a signal handler's frame: Breakpad
	// reads junk above the sigreturn trampoline (no usable CFI), we read
	// the kernel's signal frame (walker.RuleSignal). Evidence: from that
	// frame on our frames equal gdb's backtrace of the core, its sigtramp
	// frame included (oracleRealigned checks it).
	realigned
	// notCode: Breakpad's frame returns to a pc no module holds that the
	// dump's memory map (maps stream, memory info list) lists in no
	// executable mapping: a stack address, text read as a pointer. A
	// return address is the byte after a call, in code the process could
	// run (walker.CallerRules refuses such a pc from every rule); we end
	// the walk there or go on by the other rules. Evidence: the test
	// checks the pc against the dump's map and modules, and where gdb's
	// backtrace of the same crash is at hand, our frames from there on
	// against it (checkNotCode).
	notCode
)

func conformanceCases(t *testing.T) []conformanceCase {
	var cases []conformanceCase
	bp := corpus.Shared(t, "corpus", "breakpad")
	dumps, _ := filepath.Glob(filepath.Join(bp, "dumps", "*.dmp"))
	for _, d := range dumps {
		name := strings.TrimSuffix(filepath.Base(d), ".dmp")
		roots := []string{filepath.Join(bp, "symbols")}
		if name == "linux_inline" {
			roots = append(roots, filepath.Join(bp, "symbols-extra"))
		}
		cases = append(cases, conformanceCase{set: "breakpad", dump: d, roots: roots,
			machine: filepath.Join(bp, "expected", name+".machine.txt"),
			human:   filepath.Join(bp, "expected", name+".stackwalk.txt")})
	}
	gen := filepath.Join(filepath.Dir(bp), "breakpad-generated")
	if _, err := os.Stat(gen); err == nil {
		dumps, _ := filepath.Glob(filepath.Join(gen, "dumps", "*.dmp"))
		for _, d := range dumps {
			name := strings.TrimSuffix(filepath.Base(d), ".dmp")
			exp := filepath.Join(gen, "expected", name)
			cases = append(cases,
				conformanceCase{set: "generated", dump: d, roots: []string{filepath.Join(gen, "symbols")},
					machine: exp + ".machine.txt", human: exp + ".stackwalk.txt"},
				conformanceCase{set: "generated-nosyms", dump: d,
					machine: exp + ".nosyms.machine.txt", human: exp + ".nosyms.stackwalk.txt"})
			if name == "linux-amd64-inline_chain" {
				cases = append(cases, conformanceCase{set: "generated-inline", dump: d,
					roots:   []string{filepath.Join(gen, "symbols-inline"), filepath.Join(gen, "symbols")},
					machine: exp + ".inline.machine.txt", human: exp + ".inline.stackwalk.txt"})
			}
		}
		sdumps, _ := filepath.Glob(filepath.Join(gen, "stress", "dumps", "*.dmp"))
		for _, d := range sdumps {
			name := strings.TrimSuffix(filepath.Base(d), ".dmp")
			exp := filepath.Join(gen, "stress", "expected", name)
			cases = append(cases,
				conformanceCase{set: "stress", dump: d,
					roots:   []string{filepath.Join(gen, "stress", "symbols"), filepath.Join(gen, "symbols")},
					machine: exp + ".machine.txt", human: exp + ".stackwalk.txt"},
				conformanceCase{set: "stress-nosyms", dump: d, human: exp + ".nosyms.stackwalk.txt"})
		}
	}
	// The perf corpus, when its symbols were made (corpus.PerfSymbolsDir).
	perf := filepath.Join(filepath.Dir(filepath.Dir(bp)), "perf")
	if syms, err := corpus.PerfSymbolsDir(); err == nil {
		dumps, _ := filepath.Glob(filepath.Join(perf, "dumps", "*.dmp"))
		for _, d := range dumps {
			name := strings.TrimSuffix(filepath.Base(d), ".dmp")
			cases = append(cases, conformanceCase{set: "perf", dump: d, roots: []string{syms},
				machine: filepath.Join(perf, "expected", name+".machine.txt"),
				human:   filepath.Join(perf, "expected", name+".stackwalk.txt")})
		}
	}
	// rust-minidump's dumps, against a run of Breakpad's minidump_stackwalk
	// (the reference binary, when installed: see internal/testkit/oracle).
	rm := filepath.Join(filepath.Dir(bp), "rust-minidump", "testdata")
	if bin, ok := oracle.Lookup(oracle.Stackwalk); ok {
		tmp := t.TempDir()
		for _, name := range []string{"pipeline-inlines-macos-segv", "linux-mini", "invalid-parameter", "simple-crashpad", "test"} {
			d := filepath.Join(rm, name+".dmp")
			m, h := filepath.Join(tmp, name+".machine.txt"), filepath.Join(tmp, name+".txt")
			if runOracle(bin, d, m, "-m", d, filepath.Join(rm, "symbols")) && runOracle(bin, d, h, d, filepath.Join(rm, "symbols")) {
				cases = append(cases, conformanceCase{set: "rust-minidump", dump: d, roots: []string{filepath.Join(rm, "symbols")}, machine: m, human: h})
			}
		}
	}
	// Real crashes converted from cores by core2md (testdata/),
	// with Breakpad's output of each dump.
	root, err := corpus.RepoRoot()
	if err == nil {
		td := filepath.Join(root, "testdata")
		dumps, _ := filepath.Glob(filepath.Join(td, "dumps", "*.dmp"))
		for _, d := range dumps {
			name := strings.TrimSuffix(filepath.Base(d), ".dmp")
			cases = append(cases, conformanceCase{set: "testdata", dump: d, roots: []string{filepath.Join(td, "symbols")},
				machine: filepath.Join(td, "oracle", name+".breakpad.machine.txt"),
				human:   filepath.Join(td, "oracle", name+".breakpad.txt")})
		}
	}
	return cases
}

// runOracle runs Breakpad's minidump_stackwalk (bin) with args, stdout to out.
func runOracle(bin, dump, out string, args ...string) bool {
	if _, err := os.Stat(dump); err != nil {
		return false
	}
	f, err := os.Create(out)
	if err != nil {
		return false
	}
	defer f.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout = f
	return cmd.Run() == nil
}

// expectedFrame is one frame of Breakpad's output.
type expectedFrame struct {
	machine string // "module|function|file|line|offset"
	trust   string // from "Found by:"
	regs    string // "name=value ..." in print order
}

var (
	humanThreadRe = regexp.MustCompile(`^Thread (\d+)`)
	humanFrameRe  = regexp.MustCompile(`^ ?(\d+)  `)
	humanRegRe    = regexp.MustCompile(`([a-z0-9]+) = (0x[0-9a-f]+)`)
)

// readExpected parses Breakpad's -m frame lines and the human output's
// "Found by:" and register lines into thread -> frames.
func readExpected(t *testing.T, c conformanceCase) map[int][]expectedFrame {
	out := map[int][]expectedFrame{}
	if c.machine != "" {
		f, err := os.Open(c.machine)
		if err != nil {
			t.Fatalf("%v", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			parts := strings.SplitN(sc.Text(), "|", 3)
			if len(parts) < 3 {
				continue
			}
			th, err1 := strconv.Atoi(parts[0])
			fr, err2 := strconv.Atoi(parts[1])
			if err1 != nil || err2 != nil {
				continue
			}
			for len(out[th]) <= fr {
				out[th] = append(out[th], expectedFrame{})
			}
			out[th][fr].machine = parts[2]
		}
		f.Close()
	}
	if c.human == "" {
		return out
	}
	f, err := os.Open(c.human)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	th, fr := -1, -1
	for sc.Scan() {
		line := sc.Text()
		if m := humanThreadRe.FindStringSubmatch(line); m != nil {
			th, _ = strconv.Atoi(m[1])
			fr = -1
			continue
		}
		if th < 0 {
			continue
		}
		if strings.HasPrefix(line, "Loaded modules:") {
			th = -1
			continue
		}
		if m := humanFrameRe.FindStringSubmatch(line); m != nil {
			fr, _ = strconv.Atoi(m[1])
			for len(out[th]) <= fr {
				out[th] = append(out[th], expectedFrame{})
			}
			continue
		}
		if fr < 0 {
			continue
		}
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), "Found by: "); ok {
			out[th][fr].trust = s
			continue
		}
		for _, m := range humanRegRe.FindAllStringSubmatch(line, -1) {
			if out[th][fr].regs != "" {
				out[th][fr].regs += " "
			}
			out[th][fr].regs += m[1] + "=" + m[2]
		}
	}
	return out
}

// machineLine renders a frame as Breakpad's -m output does (without the
// thread and frame numbers).
func machineLine(f *Frame) string {
	strip := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", ""), "\n", "") }
	addr := f.ReturnAddress()
	if f.Module == nil {
		return fmt.Sprintf("||||0x%x", addr)
	}
	mod := strip(symfile.BaseName(f.Module.CodeFile))
	if f.Function == "" {
		return fmt.Sprintf("%s||||0x%x", mod, addr-f.Module.Base)
	}
	if f.SourceFile == "" {
		return fmt.Sprintf("%s|%s|||0x%x", mod, strip(f.Function), addr-f.FunctionBase)
	}
	return fmt.Sprintf("%s|%s|%s|%d|0x%x", mod, strip(f.Function), strip(f.SourceFile), f.SourceLine, addr-f.SourceLineBase)
}

// regsLine renders the registers Breakpad prints for a frame.
func regsLine(f *Frame, contextFrame bool) string {
	if f.Trust == walker.TrustInline {
		return ""
	}
	var order []string
	width := 8
	switch f.Context.Arch {
	case minidump.ArchX86:
		order = []string{"eip", "esp", "ebp", "ebx", "esi", "edi"}
		if contextFrame {
			order = append(order, "eax", "ecx", "edx", "efl")
		}
	case minidump.ArchAMD64:
		order = []string{"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"}
		width = 16
	case minidump.ArchARM:
		// Breakpad prints r11 as fp after r12.
		order = []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r12", "fp", "sp", "lr", "pc"}
	case minidump.ArchARM64:
		for i := range 29 {
			order = append(order, fmt.Sprintf("x%d", i))
		}
		order = append(order, "fp", "lr", "sp", "pc")
		width = 16
	default:
		return ""
	}
	var parts []string
	for _, n := range order {
		i := minidump.RegisterIndex(f.Context.Arch, n)
		v, ok := f.Context.Index(i)
		if !ok && contextFrame {
			v, ok = rawIndex(&f.Context, i), true
		}
		if ok {
			parts = append(parts, fmt.Sprintf("%s=0x%0*x", n, width, v))
		}
	}
	return strings.Join(parts, " ")
}

// rawIndex returns a register's value whether or not it is marked valid
// (Breakpad treats every register of the context frame as valid).
func rawIndex(c *minidump.Context, i int) uint64 {
	v, _ := c.Index(i)
	return v
}

type tally struct{ frames, machineFrames, same, trustSame, regsSame, known, callSite, symbolChecked int }

func TestConformanceFrames(t *testing.T) {
	cases := conformanceCases(t)
	totals := map[string]*tally{}
	var sets []string
	for _, c := range cases {
		c := c
		name := c.set + "/" + strings.TrimSuffix(filepath.Base(c.dump), ".dmp")
		t.Run(name, func(t *testing.T) {
			if c.machine != "" {
				if _, err := os.Stat(c.machine); err != nil {
					t.Skipf("no expected output: %v", err)
				}
			} else if _, err := os.Stat(c.human); err != nil {
				t.Skipf("no expected output: %v", err)
			}
			d, threads, scanThreads := walkBothWays(t, c)
			defer d.Close()
			want := readExpected(t, c)
			tl := totals[c.set]
			if tl == nil {
				tl = &tally{}
				totals[c.set] = tl
				sets = append(sets, c.set)
			}
			var ths []int
			for th := range want {
				ths = append(ths, th)
			}
			sort.Ints(ths)
			shown := 0
			badThreads := map[int]int{}
			for _, th := range ths {
				exp := want[th]
				var got []*Frame
				var gotThread *Thread
				if th < len(threads) {
					got, gotThread = threads[th].Frames, threads[th]
				}
				if from := callSiteDivergence(threads, scanThreads, th); from >= 0 {
					// A documented difference (callSite): from frame
					// `from` on, compare the walk without code instead.
					tl.callSite += len(got) - from
					got, gotThread = scanThreads[th].Frames, scanThreads[th]
				}
				n := max(len(exp), len(got))
				var scanThread *Thread
				if th < len(scanThreads) {
					scanThread = scanThreads[th]
				}
				if from := symbolCheckedFrom(got, exp, gotThread, scanThread); from >= 0 {
					// A documented difference: Breakpad's frame `from`
					// is a word the symbols rule out (symbolCheckedFrom).
					tl.symbolChecked += n - from
					n = from
				}
				auto := autoPastEntry(t, c, threads, th, got, len(exp))
				entry := oraclePastEntry(t, c, threads, th, got)
				if r := oracleRealigned(t, c, threads, th, got); r != nil && (entry == nil || r.fromFrame < entry.fromFrame) {
					entry = r
				}
				for fr := 0; fr < n; fr++ {
					if auto >= 0 && fr >= auto {
						tl.known++
						continue
					}
					k := lookupKnown(c, th, fr)
					if k == nil && entry != nil && fr >= entry.fromFrame {
						k = entry
					}
					if k != nil {
						tl.known++
						if fr == k.fromFrame {
							checkKnownDifference(t, c, k, exp, got)
						}
						continue
					}
					var e expectedFrame
					if fr < len(exp) {
						e = exp[fr]
					}
					if g, ok := compareFrame(c, tl, e, got, fr); !ok {
						badThreads[th]++
						if shown < 8 {
							t.Errorf("thread %d frame %d:\n got  %s\n want %s | %s | %s", th, fr, g, e.machine, e.trust, e.regs)
						}
						shown++
					}
				}
			}
			if shown > 8 {
				t.Errorf("... %d differing frames in all; by thread: %v", shown, badThreads)
			}
		})
	}
	for _, s := range sets {
		tl := totals[s]
		t.Logf("%-18s frames %5d  -m identical %5d/%d (%.1f%%)  trust %5d  registers %5d  documented differences %d  call-site checked %d  symbol-checked %d",
			s, tl.frames, tl.same, tl.machineFrames, 100*float64(tl.same)/float64(max(tl.machineFrames, 1)), tl.trustSame, tl.regsSame, tl.known, tl.callSite, tl.symbolChecked)
	}
}

// walkBothWays walks c's dump as the conformance test compares it, traced
// (the steps name the candidates the scans passed over), and again with
// Breakpad's scans (no code read): where the call-site check made ours
// differ, that walk must be Breakpad's. The caller closes the dump.
func walkBothWays(t *testing.T, c conformanceCase) (d *minidump.File, threads, scanThreads []*Thread) {
	d, err := minidump.Open(c.dump)
	if err != nil {
		t.Skipf("open: %v", err)
	}
	// Our arm and arm64 walkers add recovery methods Breakpad lacks
	// (walker/arm, walker/arm64), so their frames are compared in
	// Breakpad's mode, where every frame must be Breakpad's.
	opts := Options{Trace: true}
	if si, err := d.SystemInfo(); err != nil || (si.Arch != minidump.ArchX86 && si.Arch != minidump.ArchAMD64) {
		opts.Mode = walker.Breakpad
	}
	var sup symfile.Supplier
	if len(c.roots) > 0 {
		sup = symcompress.NewDirSupplier(c.roots...)
	}
	// Traced: the steps name the candidates the scans passed over.
	st, err := Process(d, sup, opts)
	if err != nil {
		d.Close()
		t.Fatalf("Process: %v", err)
	}
	threads, _ = st.BreakpadThreads()
	// The same walk with Breakpad's scans (no code read): where the
	// call-site check made ours differ, that walk must be Breakpad's.
	scanOpts := opts
	scanOpts.NoCode = true
	stScan, err := Process(d, sup, scanOpts)
	if err != nil {
		d.Close()
		t.Fatalf("Process: %v", err)
	}
	scanThreads, _ = stScan.BreakpadThreads()
	return d, threads, scanThreads
}

// compareFrame compares our frame fr of got (none past its end) with
// Breakpad's e and counts it in tl: the -m line where the case has
// Breakpad's -m output, the trust, the registers. It returns our frame's
// line, trust and registers as the failure prints them, and whether they
// are Breakpad's.
func compareFrame(c conformanceCase, tl *tally, e expectedFrame, got []*Frame, fr int) (string, bool) {
	tl.frames++
	var gm, gt, gr string
	if fr < len(got) {
		gm, gt, gr = machineLine(got[fr]), got[fr].Trust.String(), regsLine(got[fr], fr == 0)
	}
	ok := true
	if c.machine != "" {
		tl.machineFrames++
		if gm == e.machine {
			tl.same++
		} else {
			ok = false
		}
	}
	if e.trust == gt {
		tl.trustSame++
	} else if e.trust != "" || c.machine == "" {
		ok = false
	}
	if e.regs == gr {
		tl.regsSame++
	} else if e.regs != "" {
		ok = false
	}
	return gm + " | " + gt + " | " + gr, ok
}

// callSiteDivergence returns the first frame of thread th where the default
// walk differs from the walk with Options.NoCode, or -1. Such a
// difference is deliberate: when the dump holds the code before a scanned
// word, our scans skip words no call instruction precedes (function
// pointers, stale values) and prefer a direct call to the callee's own
// function; Breakpad takes the first word that points into a function
// (TestCallSiteEvidence checks every such frame of the corpora against
// objdump, and against gdb where gdb's backtrace exists).
func callSiteDivergence(ours, scan []*Thread, th int) int {
	if th >= len(ours) || th >= len(scan) {
		return -1
	}
	a, b := ours[th].Frames, scan[th].Frames
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || machineLine(a[i]) != machineLine(b[i]) || regsLine(a[i], i == 0) != regsLine(b[i], i == 0) || a[i].Trust != b[i].Trust {
			return i
		}
	}
	return -1
}

func lookupKnown(c conformanceCase, thread, frame int) *knownDifference {
	name := strings.TrimSuffix(filepath.Base(c.dump), ".dmp")
	for i := range knownDifferences {
		k := &knownDifferences[i]
		if k.set == c.set && k.dump == name && k.thread == thread && frame >= k.fromFrame {
			return k
		}
	}
	return nil
}

// checkKnownDifference verifies the evidence of a documented difference.
func checkKnownDifference(t *testing.T, c conformanceCase, k *knownDifference, exp []expectedFrame, got []*Frame) {
	t.Helper()
	switch k.kind {
	case notCode:
		checkNotCode(t, c, k, exp, got)
	case pastEntry:
		// We stop at _start: our stack has exactly fromFrame frames and
		// the last is _start; gdb's backtrace ends at the same address.
		if len(got) != k.fromFrame || got[len(got)-1].Function != "_start" {
			t.Errorf("thread %d: want our walk to end with _start as frame %d, got %d frames", k.thread, k.fromFrame-1, len(got))
			return
		}
		// gdb's backtrace: the breakpad-generated corpus has gdb's own
		// output, testdata/ the frames gdb_frames.py listed.
		gdb := filepath.Join(filepath.Dir(filepath.Dir(c.dump)), "gdb", k.dump+".gdb.txt")
		want := fmt.Sprintf("0x%016x in _start ()", got[len(got)-1].ReturnAddress())
		prefix := "#"
		if c.set == "testdata" {
			gdb = filepath.Join(filepath.Dir(filepath.Dir(c.dump)), "oracle", k.dump+".frames.txt")
			want = fmt.Sprintf(" 0x%x normal _start", got[len(got)-1].ReturnAddress())
			prefix = "frame "
		}
		b, err := os.ReadFile(gdb)
		if err != nil {
			t.Errorf("evidence %s: %v", gdb, err)
			return
		}
		lines := strings.Split(string(b), "\n")
		found := false
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) && strings.HasSuffix(l, want) {
				found = i+1 == len(lines) || !strings.HasPrefix(lines[i+1], prefix)
			}
		}
		if !found {
			t.Errorf("evidence: gdb backtrace in %s does not end with %q", gdb, want)
		}
	case imageBase:
		// Each of our node frames must carry the name node.sym gives for
		// the address relative to the image start.
		for _, f := range got[min(k.fromFrame, len(got)):] {
			if f.Module == nil || f.Module.CodeFile != "/usr/bin/node" && symfile.BaseName(f.Module.CodeFile) != "node" {
				continue
			}
			if f.Module.SymbolBase != 0x400000 {
				t.Errorf("node frame at %#x: symbol base %#x, want the image start 0x400000", f.ReturnAddress(), f.Module.SymbolBase)
			}
		}
	}
}

// autoPastEntry handles the perf corpus, where every crashing main thread
// has Breakpad's one junk frame after _start: it returns the first such
// frame when our walk ends at _start, Breakpad's goes on, and gdb's frame
// list for the thread (perf/gdb/NAME.frames.txt) ends at the same address;
// otherwise -1.
func autoPastEntry(t *testing.T, c conformanceCase, threads []*Thread, th int, got []*Frame, nexp int) int {
	t.Helper()
	if c.set != "perf" || len(got) == 0 || len(got) >= nexp || got[len(got)-1].Function != "_start" {
		return -1
	}
	name := strings.TrimSuffix(filepath.Base(c.dump), ".dmp")
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(c.dump)), "gdb", name+".frames.txt"))
	if err != nil {
		t.Errorf("evidence: %v", err)
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && f[0] == "GDBTHREAD" && f[1] == strconv.Itoa(int(threads[th].ID)) {
			if f[len(f)-1] == strconv.FormatUint(got[len(got)-1].ReturnAddress(), 16) {
				return len(got)
			}
		}
	}
	t.Errorf("evidence: gdb's frames of thread %d do not end at our _start frame", threads[th].ID)
	return -1
}

// oraclePastEntry is the pastEntry difference of a testdata/ thread, found
// from the oracles rather than listed: when our walk ends at _start and
// gdb's listing of the core (testdata/oracle/NAME.frames.txt) ends at
// _start with the same address, Breakpad's frames after ours are past the
// entry. Breakpad's frames up to there are still compared one by one.
func oraclePastEntry(t *testing.T, c conformanceCase, threads []*Thread, th int, got []*Frame) *knownDifference {
	t.Helper()
	if c.set != "testdata" || th >= len(threads) || len(got) == 0 || got[len(got)-1].Function != "_start" {
		return nil
	}
	name := strings.TrimSuffix(filepath.Base(c.dump), ".dmp")
	path := filepath.Join(filepath.Dir(filepath.Dir(c.dump)), "oracle", name+".frames.txt")
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	for _, g := range oracle.ReadGDBFrames(t, path) {
		if g.LWP != threads[th].ID || len(g.Frames) == 0 {
			continue
		}
		if last := g.Frames[len(g.Frames)-1]; last.Function == "_start" && last.PC == got[len(got)-1].ReturnAddress() {
			return &knownDifference{set: c.set, dump: name, thread: th, fromFrame: len(got), kind: pastEntry}
		}
	}
	return nil
}

// oracleRealigned is the realigned difference of a testdata/ thread: from
// the first frame our walk recovered by a realigned frame's saved stack
// pointer (walker.RuleRealigned) on, Breakpad's frames are not compared;
// ours must equal gdb's listing of the core from there to the end.
func oracleRealigned(t *testing.T, c conformanceCase, threads []*Thread, th int, got []*Frame) *knownDifference {
	t.Helper()
	if c.set != "testdata" || th >= len(threads) {
		return nil
	}
	var phys []*Frame
	from, physFrom := -1, -1
	for i, f := range got {
		if f.Trust == walker.TrustInline {
			continue
		}
		switch {
		case from >= 0:
		case f.Rule == walker.RuleRealigned:
			from, physFrom = i, len(phys)
		case i+1 < len(got) && got[i+1].Rule == walker.RuleSignal:
			from, physFrom = i, len(phys) // the signal trampoline, looked up at its first byte
		}
		phys = append(phys, f)
	}
	if from < 0 {
		return nil
	}
	name := strings.TrimSuffix(filepath.Base(c.dump), ".dmp")
	for _, g := range oracle.ReadGDBFrames(t, filepath.Join(filepath.Dir(filepath.Dir(c.dump)), "oracle", name+".frames.txt")) {
		if g.LWP != threads[th].ID {
			continue
		}
		var want []string
		for _, f := range g.Frames {
			if f.Type == "normal" || f.Type == "sigtramp" {
				want = append(want, fmt.Sprintf("%#x", f.PC))
			}
		}
		// From the realigned frame to the end: the frames before it may
		// be the walk without code (callSiteDivergence), which misses
		// frames only the code shows (x86-large's frameless callees).
		var ours []string
		for _, f := range phys[physFrom:] {
			ours = append(ours, fmt.Sprintf("%#x", f.ReturnAddress()))
		}
		if len(ours) > len(want) || strings.Join(ours, " ") != strings.Join(want[len(want)-len(ours):], " ") {
			t.Errorf("evidence: thread %d walks through a realigned frame to %v, gdb %v", th, ours, want)
			return nil
		}
		return &knownDifference{set: c.set, dump: name, thread: th, fromFrame: from, kind: realigned}
	}
	t.Errorf("evidence: thread %d not in gdb's listing of %s", th, name)
	return nil
}

// knownDifferences lists where we deliberately differ from Breakpad
// (testdata/'s pastEntry ones come from gdb: oraclePastEntry).
var knownDifferences = []knownDifference{
	{"generated", "linux-amd64-deep_fpo", 0, 20, pastEntry},
	{"generated", "linux-amd64-inline_chain", 0, 6, pastEntry},
	{"generated-inline", "linux-amd64-inline_chain", 0, 9, pastEntry},
	{"generated", "linux-amd64-recursive", 0, 69, pastEntry},
	{"generated", "linux-amd64-threads", 0, 6, pastEntry},
	{"generated", "linux-amd64-threads_abort", 0, 6, pastEntry},
	{"stress", "linux-amd64-node-live", 0, 1, imageBase},
	{"stress", "linux-amd64-node-live", 1, 1, imageBase},
	{"stress", "linux-amd64-node-live", 2, 2, imageBase},
	{"stress", "linux-amd64-node-live", 3, 2, imageBase},
	{"stress", "linux-amd64-node-live", 4, 2, imageBase},
	{"stress", "linux-amd64-node-live", 5, 2, imageBase},
	{"stress", "linux-amd64-node-live", 6, 2, imageBase},
	// Breakpad's pcs 0x6172747320746f6e ("not stra", the smashed
	// stack's text) and 0x1007ffe64f79898, 0x1007fb6ef84a000 (stack
	// addresses with bit 56 set) lie in no mapping; recursive's frame
	// record gives 0x7ffd42049fcc, in the [stack] mapping (rw-p), where
	// gdb has recurse+0x2ae7's returns, which our scan finds.
	{"breakpad", "linux_stacksmash", 0, 7, notCode},
	{"generated-nosyms", "linux-amd64-recursive", 0, 1, notCode},
	{"stress", "linux-amd64-docker-live", 0, 7, notCode},
	{"stress", "linux-amd64-docker-live", 5, 7, notCode},
}

// checkNotCode checks a notCode difference: Breakpad's frame k.fromFrame
// returns to a pc (its rip) that, as the byte before it, lies in no
// module of the dump and in no executable mapping of its memory map;
// where gdb's backtrace of the same crash is at hand (the
// breakpad-generated corpus), our thread has at least as many of gdb's
// frames in order as Breakpad's and no more foreign ones (inOrder).
func checkNotCode(t *testing.T, c conformanceCase, k *knownDifference, exp []expectedFrame, got []*Frame) {
	t.Helper()
	if k.fromFrame >= len(exp) {
		t.Errorf("thread %d: Breakpad has no frame %d", k.thread, k.fromFrame)
		return
	}
	m := ipInRegs.FindStringSubmatch(exp[k.fromFrame].regs)
	if m == nil {
		t.Errorf("thread %d frame %d: no pc in Breakpad's registers %q", k.thread, k.fromFrame, exp[k.fromFrame].regs)
		return
	}
	pc, _ := strconv.ParseUint(m[1], 16, 64)
	d, err := minidump.Open(c.dump)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	infos, _ := d.MemoryInfo()
	maps, _ := d.MapsRegions()
	mods, _ := d.Modules()
	exec := executableMap(infos, maps)
	if exec == nil {
		t.Errorf("evidence: %s lists no memory map", c.dump)
		return
	}
	for _, a := range []uint64{pc, pc - 1} {
		if exec(a) {
			t.Errorf("evidence: Breakpad's pc %#x: %#x is in an executable mapping", pc, a)
		}
		for _, mod := range mods {
			if a-mod.Base < uint64(mod.Size) {
				t.Errorf("evidence: Breakpad's pc %#x: %#x is in module %s", pc, a, mod.Name)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(c.dump)), "gdb", k.dump+".gdb.txt"))
	if err != nil {
		return // no gdb backtrace: the breakpad and stress corpora
	}
	var gdb []uint64 // the first thread's backtrace, #0 on
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 || f[0] != fmt.Sprintf("#%d", len(gdb)) || f[2] != "in" {
			continue
		}
		a, err := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
		if err != nil {
			t.Fatalf("evidence: gdb line %q", l)
		}
		gdb = append(gdb, a)
	}
	var ours, theirs []uint64
	for _, f := range got {
		ours = append(ours, f.ReturnAddress())
	}
	for _, e := range exp {
		if m := ipInRegs.FindStringSubmatch(e.regs); m != nil {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			theirs = append(theirs, a)
		}
	}
	oIn, oForeign := inOrder(ours, gdb)
	tIn, tForeign := inOrder(theirs, gdb)
	t.Logf("thread %d against gdb's %d frames: ours %d in order, %d foreign; Breakpad's %d, %d", k.thread, len(gdb), oIn, oForeign, tIn, tForeign)
	if oIn < tIn || oForeign > tForeign {
		t.Errorf("evidence: thread %d: ours %d in order with gdb, %d foreign; Breakpad's %d, %d", k.thread, oIn, oForeign, tIn, tForeign)
	}
}

// inOrder counts the frames of walk that follow oracle's order (each
// found after the one matched before it) and those oracle lacks there.
func inOrder(walk, oracle []uint64) (in, foreign int) {
	j := 0
	for _, a := range walk {
		k := j
		for k < len(oracle) && oracle[k] != a {
			k++
		}
		if k == len(oracle) {
			foreign++
			continue
		}
		in++
		j = k + 1
	}
	return in, foreign
}

// TestNodeImageBaseEvidence shows from node.sym that Breakpad's names for
// node frames come from offsets against the wrong module entry: thread 0
// frame 1 returns to 0x18c0366; relative to the image start 0x400000 that
// is in uv__io_poll (our name), relative to the text entry 0xb72000 it is
// in v8::internal::MarkCompactCollector::ProcessEphemerons() (Breakpad's).
func TestNodeImageBaseEvidence(t *testing.T) {
	gen := corpus.Shared(t, "corpus", "breakpad-generated")
	syms, _ := filepath.Glob(filepath.Join(gen, "stress", "symbols", "node", "*", "node.sym.gz"))
	if len(syms) != 1 {
		t.Skip("node.sym.gz not present")
	}
	f, err := symcompress.Open(syms[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const ret = 0x18c0366
	for _, c := range []struct {
		base uint64
		want string
	}{{0x400000, "uv__io_poll"}, {0xb72000, "v8::internal::MarkCompactCollector::ProcessEphemerons()"}} {
		sym, ok := f.Lookup(ret - 1 - c.base)
		if !ok || sym.Name != c.want {
			t.Errorf("node.sym at %#x (base %#x): got %q, want %q", ret-1-c.base, c.base, sym.Name, c.want)
		}
	}
	if m := f.Module(); m.ID != "DFF2EAEB4D36EB5E7096F0F7722A69EE0" {
		t.Errorf("MODULE id %s", m.ID)
	}
}

var ipInRegs = regexp.MustCompile(`\b[er]ip=0x([0-9a-f]+)`)

// symbolCheckedFrom returns the first frame where our walk (got)
// differs from Breakpad's (exp) because the scan passed over Breakpad's
// word for it: the symbols rule that word out as a return address
// (retaddr's symbolObjection: a function's first byte, the program's
// entry point, _fini, _init past its code, far from a PUBLIC), and the
// traced steps of our frame there (or of the walk's end) say so, in got's
// thread or in the walk without code (where the code did not decide
// first, the symbols did); or -1. From there on the walks are not
// compared. The frames our walk finds instead are held to gdb, the
// symbols or the code by internal/testkit/difftest's TestCorpusAddedFrames.
func symbolCheckedFrom(got []*Frame, exp []expectedFrame, traced ...*Thread) int {
	for fr := range exp {
		m := ipInRegs.FindStringSubmatch(exp[fr].regs)
		var ip uint64
		if m != nil {
			ip, _ = strconv.ParseUint(m[1], 16, 64)
		}
		same := fr < len(got) && exp[fr].machine != "" && machineLine(got[fr]) == exp[fr].machine
		if exp[fr].machine == "" && fr < len(got) && m != nil {
			gotIP, _ := got[fr].Context.IP()
			same = gotIP == ip
		}
		if same {
			continue
		}
		if m == nil {
			return -1
		}
		note := fmt.Sprintf("= %#x: symbols: ", ip)
		for _, th := range traced {
			if th == nil {
				continue
			}
			steps := th.WalkEnd
			if fr < len(th.Frames) {
				steps = th.Frames[fr].Steps
			}
			for _, s := range steps {
				if s.Rule == walker.RuleScanChecked && !s.Taken && strings.Contains(s.Note, note) {
					return fr
				}
			}
		}
		return -1
	}
	return -1
}
