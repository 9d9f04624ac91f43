package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// The conformance tests run the command in-process on every minidump of
// ../shared/corpus and compare the output with Breakpad's minidump_stackwalk
// output stored there (the commands that made each expected file are in the
// corpus READMEs; the arguments below repeat them).

// golden is one expected output and the command line that produced it.
type golden struct {
	set      string   // "breakpad", "breakpad-generated", "stress", "flags"
	expected string   // path of Breakpad's output
	args     []string // our command line (absolute paths)
	machine  bool     // -m output
	brief    bool     // -b output (no header)
}

func (g golden) name() string { return filepath.Base(g.expected) }

// goldens lists the expected outputs of the corpus for minidumps.
func goldens(t *testing.T) []golden {
	t.Helper()
	out := testdataGoldens(t)
	repo, err := corpus.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(repo, "..", "shared", "corpus")
	if _, err := os.Stat(root); err != nil {
		t.Logf("shared corpus not present at %s: only testdata/ is compared", root)
		return out
	}
	add := func(set, expected string, args ...string) {
		if _, err := os.Stat(expected); err != nil {
			t.Errorf("expected file missing: %v", err)
			return
		}
		base := filepath.Base(expected)
		m := strings.HasSuffix(base, ".machine.txt") || strings.HasSuffix(base, ".f-machine.txt")
		b := strings.HasSuffix(base, ".b.txt")
		out = append(out, golden{set: set, expected: expected, args: args, machine: m, brief: b})
	}

	// breakpad/: minidump_stackwalk [-m] dumps/X.dmp symbols
	bp := filepath.Join(root, "breakpad")
	dumps, _ := filepath.Glob(filepath.Join(bp, "dumps", "*.dmp"))
	for _, d := range dumps {
		name := strings.TrimSuffix(filepath.Base(d), ".dmp")
		syms := []string{filepath.Join(bp, "symbols")}
		if name == "linux_inline" {
			syms = append(syms, filepath.Join(bp, "symbols-extra"))
		}
		add("breakpad", filepath.Join(bp, "expected", name+".stackwalk.txt"), append([]string{d}, syms...)...)
		add("breakpad", filepath.Join(bp, "expected", name+".machine.txt"), append([]string{"-m", d}, syms...)...)
	}
	flagArgs := map[string][]string{
		"s": {"-s"}, "c": {"-c"}, "t1": {"-t", "1"}, "t2": {"-t", "2"}, "d": {"-d"}, "b": {"-b"},
		"cs": {"-c", "-s"}, "cd": {"-c", "-d"}, "f-machine": {"-f", "machine"}, "f-human": {"-f", "human"},
	}
	addFlags := func(dir, dumpDir, syms string) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
		for _, f := range files {
			base := strings.TrimSuffix(filepath.Base(f), ".txt")
			dot := strings.LastIndexByte(base, '.')
			dump, flag := base[:dot], base[dot+1:]
			fa, ok := flagArgs[flag]
			if !ok {
				t.Errorf("%s: unknown flag variant %q", f, flag)
				continue
			}
			args := append(append([]string{}, fa...), filepath.Join(dumpDir, dump+".dmp"), syms)
			add("flags", f, args...)
		}
	}
	addFlags(filepath.Join(bp, "expected", "flags"), filepath.Join(bp, "dumps"), filepath.Join(bp, "symbols"))

	// breakpad-generated/: with symbols, with -s, without symbols; inline_chain with symbols-inline.
	bg := filepath.Join(root, "breakpad-generated")
	dumps, _ = filepath.Glob(filepath.Join(bg, "dumps", "*.dmp"))
	syms := filepath.Join(bg, "symbols")
	for _, d := range dumps {
		name := strings.TrimSuffix(filepath.Base(d), ".dmp")
		exp := filepath.Join(bg, "expected", name)
		add("breakpad-generated", exp+".stackwalk.txt", d, syms)
		add("breakpad-generated", exp+".machine.txt", "-m", d, syms)
		add("breakpad-generated", exp+".stackwalk-s.txt", "-s", d, syms)
		add("breakpad-generated", exp+".nosyms.stackwalk.txt", d)
		add("breakpad-generated", exp+".nosyms.machine.txt", "-m", d)
		if name == "linux-amd64-inline_chain" {
			inl := filepath.Join(bg, "symbols-inline")
			add("breakpad-generated", exp+".inline.stackwalk.txt", d, inl, syms)
			add("breakpad-generated", exp+".inline.machine.txt", "-m", d, inl, syms)
		}
	}
	addFlags(filepath.Join(bg, "expected", "flags"), filepath.Join(bg, "dumps"), syms)

	// breakpad-generated/stress/: large .sym.gz files.
	st := filepath.Join(bg, "stress")
	dumps, _ = filepath.Glob(filepath.Join(st, "dumps", "*.dmp"))
	for _, d := range dumps {
		name := strings.TrimSuffix(filepath.Base(d), ".dmp")
		exp := filepath.Join(st, "expected", name)
		ss := filepath.Join(st, "symbols")
		add("stress", exp+".stackwalk.txt", d, ss, syms)
		add("stress", exp+".machine.txt", "-m", d, ss, syms)
		add("stress", exp+".nosyms.stackwalk.txt", d)
	}
	return out
}

// testdataGoldens lists the Breakpad outputs kept with the repository's own
// dumps (testdata/oracle, made by scripts/gen-testdata/gen.sh with
// minidump_stackwalk [-m] dumps/X.dmp symbols); they need no ../shared.
func testdataGoldens(t *testing.T) []golden {
	t.Helper()
	td := corpus.Testdata(t)
	dumps, _ := filepath.Glob(filepath.Join(td, "dumps", "*.dmp"))
	var out []golden
	for _, d := range dumps {
		name := strings.TrimSuffix(filepath.Base(d), ".dmp")
		syms := filepath.Join(td, "symbols")
		for _, v := range []struct {
			file string
			args []string
		}{{name + ".breakpad.txt", []string{d, syms}}, {name + ".breakpad.machine.txt", []string{"-m", d, syms}}} {
			exp := filepath.Join(td, "oracle", v.file)
			if _, err := os.Stat(exp); err != nil {
				continue
			}
			out = append(out, golden{set: "testdata-" + strings.SplitN(name, "-", 2)[0], expected: exp, args: v.args,
				machine: strings.HasSuffix(v.file, ".machine.txt")})
		}
	}
	if len(out) == 0 {
		t.Fatal("no Breakpad outputs in testdata/oracle")
	}
	return out
}

// threadOutOfRange reports whether a run ended in the usage error for -t
// past the dump's last thread, where the default mode differs from
// Breakpad on purpose (TestThreadOutOfRange; --breakpad-compat prints what
// Breakpad prints).
func threadOutOfRange(status int, stderr string) bool {
	return status == exitUsage && strings.Contains(stderr, " threads (0 to ")
}

// runGolden runs our command for g, with extra flags first, and returns its
// stdout, exit status and stderr.
func runGolden(t *testing.T, g golden, extra ...string) (string, int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	status := run(append(extra, g.args...), &stdout, &stderr)
	// Breakpad prints no crash analysis (crashanalysis_test.go).
	return dropCrashAnalysis(stdout.String()), status, stderr.String()
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return splitLines(string(b))
}

func splitLines(s string) []string {
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// headerLines returns the lines that need no stack walk: for -m the lines
// before the blank line (OS, CPU, GPU, Crash, Module); for the human report
// "Operating system:" through "Process uptime:".
func headerLines(lines []string, machine bool) []string {
	if machine {
		for i, l := range lines {
			if l == "" {
				return lines[:i]
			}
		}
		return lines
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "Process uptime:") {
			return lines[:i+1]
		}
	}
	return nil
}

// Issue 2: the non-frame lines of -m and the human header block match
// Breakpad's for every dump.
func TestConformanceHeaders(t *testing.T) {
	for _, g := range goldens(t) {
		if g.brief {
			continue
		}
		t.Run(g.set+"/"+g.name(), func(t *testing.T) {
			want := headerLines(readLines(t, g.expected), g.machine)
			if len(want) == 0 {
				t.Fatalf("no header block in %s", g.expected)
			}
			out, status, stderr := runGolden(t, g)
			if threadOutOfRange(status, stderr) {
				t.Logf("deliberate difference: -t past the last thread is a usage error (Breakpad prints the crashed thread alone)")
				return
			}
			got := headerLines(splitLines(out), g.machine)
			if d := firstDiff(want, got); d != "" {
				t.Errorf("minidump-stackwalk %s\n%s\nstderr: %s", strings.Join(g.args, " "), d, stderr)
			}
		})
	}
}

// firstDiff describes the first differing line of two line lists, or "".
func firstDiff(want, got []string) string {
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if i >= len(want) || i >= len(got) || w != g {
			return fmt.Sprintf("line %d:\n  breakpad: %q\n  ours:     %q", i+1, w, g)
		}
	}
	return ""
}

// commonLines counts the lines of a longest common subsequence of a and b:
// the lines a diff would leave unchanged.
func commonLines(a, b []string) int {
	n := 0
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b, n = a[1:], b[1:], n+1
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b, n = a[:len(a)-1], b[:len(b)-1], n+1
	}
	if len(a) == 0 || len(b) == 0 {
		return n
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return n + prev[len(b)]
}

// Issue 4: our -m and human outputs are identical to Breakpad's, line for
// line, apart from the documented deliberate differences:
//
//   - past _start: Breakpad walks on past the program's entry function into
//     junk frames; we stop there (see processor.Options.Mode and
//     the evidence in processor/conformance_test.go). Such an expected file
//     must equal ours once the frames after each thread's "!_start" frame are
//     removed from it.
//   - the files in knownDifferences, compared only by share.
//   - call sites: dumps whose walk the check of the code before scanned
//     words changes (callsite_test.go), compared only by share.
//   - realigned frames (i386 main, GCC's DRAP): from the caller our walk
//     finds through the saved stack pointer on (realigned_test.go).
//   - -c walks the requesting thread alone: its module list does not mark
//     "No symbols" on modules whose frames are all in other threads
//     (TestCrashedOnlyWalksOneThread, docs/limits.md).
//
// TestConformanceBreakpadCompat checks that --breakpad-compat removes every
// one of these differences.
func TestConformanceOutputs(t *testing.T) {
	type tally struct{ same, total, files, identical, pastEntry, callSite int }
	sets := map[string]*tally{}
	for _, g := range goldens(t) {
		t.Run(g.set+"/"+g.name(), func(t *testing.T) {
			want := readLines(t, g.expected)
			out, status, stderr := runGolden(t, g)
			if threadOutOfRange(status, stderr) {
				t.Logf("deliberate difference: -t past the last thread is a usage error (Breakpad prints the crashed thread alone)")
				return
			}
			got := splitLines(out)
			s := sets[g.set]
			if s == nil {
				s = &tally{}
				sets[g.set] = s
			}
			same := commonLines(want, got)
			s.same += same
			s.total += max(len(want), len(got))
			s.files++
			if status != exitOK {
				t.Errorf("exit status %d, stderr: %s", status, stderr)
			}
			d := firstDiff(want, got)
			if d == "" {
				s.identical++
				return
			}
			if shareOnlySets[g.set] {
				t.Logf("differs by design (extended %s walker): %d of %d lines identical; first: %s", g.set, same, len(want), d)
				return
			}
			if reason, ok := knownDifferences[g.name()]; ok {
				t.Logf("known difference (%s): %d of %d lines identical; first: %s", reason, same, len(want), d)
				return
			}
			trimmed := dropPastEntry(want, g.machine)
			if firstDiff(trimmed, got) == "" {
				s.pastEntry++
				t.Logf("deliberate difference: Breakpad's frames past _start dropped (%d lines)", len(want)-len(trimmed))
				return
			}
			if crashedOnlyMarksDropped(g.args, want, got) { // see limits_test.go
				t.Logf("deliberate difference: -c walks the thread it prints alone, so modules whose frames are all in other threads are not marked")
				return
			}
			if realignedChecked(t, g.args) { // see realigned_test.go
				t.Logf("deliberate difference: a realigned frame's caller from its saved stack pointer; %d of %d lines identical", same, len(want))
				return
			}
			if callSiteChecked(t, g.args) { // see callsite_test.go
				s.callSite++
				t.Logf("deliberate difference: scanned words no call precedes skipped; %d of %d lines identical", same, len(want))
				return
			}
			t.Errorf("minidump-stackwalk %s: %d of %d lines identical\n%s", strings.Join(g.args, " "), same, len(want), d)
		})
	}
	names := make([]string, 0, len(sets))
	for n := range sets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := sets[n]
		t.Logf("%-20s %3d/%3d files identical, %3d more identical but for frames past _start, %3d differ by the call-site check; %6d/%6d lines identical (%.2f%%)",
			n, s.identical, s.files, s.pastEntry, s.callSite, s.same, s.total, 100*float64(s.same)/float64(max(s.total, 1)))
	}
}

// knownDifferences lists, by file name, the expected outputs we knowingly do
// not reproduce by default, with the reason.
var knownDifferences = map[string]string{
	// node's image is mapped as four module entries; Breakpad looks symbols
	// up relative to the entry containing the address while node.sym is
	// relative to the image start, so it misnames node frames (the corpus
	// README shows uv__io_poll printed as
	// MarkCompactCollector::ProcessEphemerons) and walks on with the wrong
	// CFI. Evidence: processor's TestNodeImageBaseEvidence.
	"linux-amd64-node-live.stackwalk.txt": "node image split into module entries: Breakpad misnames node frames",
	"linux-amd64-node-live.machine.txt":   "node image split into module entries: Breakpad misnames node frames",
	// A caller pc in no module and in no executable mapping of the dump's
	// memory map is no return address (walker.CallerRules): Breakpad's
	// frame there is dropped and the walk ends or goes on by the other
	// rules. Evidence: processor's TestConformanceFrames (notCode,
	// checkNotCode: the pc against the dump's map and modules; recursive's
	// walk against gdb), docs/client-dumps.md ("A caller pc in data").
	"linux_stacksmash.stackwalk.txt":             notCodeDifference,
	"linux_stacksmash.machine.txt":               notCodeDifference,
	"linux-amd64-recursive.nosyms.stackwalk.txt": notCodeDifference,
	"linux-amd64-recursive.nosyms.machine.txt":   notCodeDifference,
	"linux-amd64-docker-live.stackwalk.txt":      notCodeDifference,
	"linux-amd64-docker-live.machine.txt":        notCodeDifference,
}

const notCodeDifference = "Breakpad's caller pc in data the dump's memory map lists: no return address"

// shareOnlySets are compared by share of identical lines only: by default
// our arm and arm64 walkers add recovery methods Breakpad lacks (packages
// walker/arm and walker/arm64, processor.Options.Mode), so their
// frames differ from Breakpad's by design; TestConformanceBreakpadCompat
// holds them to Breakpad's output exactly.
var shareOnlySets = map[string]bool{"testdata-arm": true, "testdata-arm64": true}

// dropPastEntry removes from Breakpad's output, in every thread, the frames
// after the frame of the entry function _start (and, for -s, the stack
// contents printed for _start, which then has no caller).
func dropPastEntry(lines []string, machine bool) []string {
	var out []string
	if machine {
		entry := map[string]int{} // thread -> frame index of _start
		for _, l := range lines {
			f := strings.Split(l, "|")
			if len(f) == 7 && !strings.Contains(f[0], "Module") {
				if n, ok := entry[f[0]]; ok && atoi(f[1]) > n {
					continue
				}
				if f[3] == "_start" {
					entry[f[0]] = atoi(f[1])
				}
			}
			out = append(out, l)
		}
		return out
	}
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if !isFrameHeader(lines[i]) || !strings.Contains(lines[i], "!_start ") {
			continue
		}
		// Keep the frame's register and "Found by:" lines.
		for i+1 < len(lines) && lines[i+1] != "" && !isFrameHeader(lines[i+1]) {
			i++
			out = append(out, lines[i])
		}
		// Skip to the end of the thread: a blank line before the next
		// thread or the module list, or the end of the output.
		for i+1 < len(lines) && !(lines[i+1] == "" && i+2 < len(lines) &&
			(strings.HasPrefix(lines[i+2], "Thread ") || lines[i+2] == "Loaded modules:")) {
			i++
		}
	}
	return out
}

// isFrameHeader reports whether l is a frame line (" 0  module!function ...").
func isFrameHeader(l string) bool {
	num, rest, ok := strings.Cut(strings.TrimPrefix(l, " "), "  ")
	if !ok || num == "" || rest == "" {
		return false
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

// With --breakpad-compat every output is identical to Breakpad's.
func TestConformanceBreakpadCompat(t *testing.T) {
	type tally struct{ files, identical int }
	sets := map[string]*tally{}
	for _, g := range goldens(t) {
		t.Run(g.set+"/"+g.name(), func(t *testing.T) {
			want := readLines(t, g.expected)
			out, status, stderr := runGolden(t, g, "--breakpad-compat")
			s := sets[g.set]
			if s == nil {
				s = &tally{}
				sets[g.set] = s
			}
			s.files++
			if status != exitOK {
				t.Errorf("exit status %d, stderr: %s", status, stderr)
			}
			if d := firstDiff(want, splitLines(out)); d != "" {
				t.Errorf("minidump-stackwalk --breakpad-compat %s:\n%s", strings.Join(g.args, " "), d)
				return
			}
			s.identical++
		})
	}
	names := make([]string, 0, len(sets))
	for n := range sets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%-20s %3d/%3d files identical with --breakpad-compat", n, sets[n].identical, sets[n].files)
	}
}
