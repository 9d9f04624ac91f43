package main

// A deliberate difference from Breakpad and rust-minidump: when a dump holds
// the code before a scanned stack word (Linux dumps hold 256 bytes around
// the crash address), a word no call instruction precedes is no return
// address and is skipped; so is, with or without code, a word the symbols
// rule out (a function's first byte, the program's entry point, _fini,
// _init past its code: symbolCut). Breakpad and rust-minidump print such words as
// frames (function pointers: the Linux dumps' `driver+0x1edd` follows a
// jmp, linux-mini's `crash+0x1dc0` is _start after padding). processor's
// TestConformanceFrames holds the walk with Options.NoCode to
// Breakpad's frames, processor's TestCallSiteEvidence checks every frame
// the check changes in the four corpora against objdump (and gdb where it
// backtraced the crash), and TestConformanceBreakpadCompat holds
// --breakpad-compat to Breakpad's whole output.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// dumpAndRoots finds the dump and the symbol roots in a golden's command
// line: the first .dmp argument, then the paths after it (not a .json
// output) and --symbols-path=DIR values.
func dumpAndRoots(args []string) (dump string, roots []string) {
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "--symbols-path="):
			roots = append(roots, strings.TrimPrefix(a, "--symbols-path="))
		case strings.HasPrefix(a, "-"):
		case dump == "" && strings.HasSuffix(a, ".dmp"):
			dump = a
		case dump != "" && !strings.HasSuffix(a, ".json"):
			roots = append(roots, filepath.Clean(a))
		}
	}
	return dump, roots
}

// callSiteChecked reports whether the conformance tests may excuse the
// difference between our output for args (a command line: the dump, then
// symbol paths, or --symbols-path=DIR) and Breakpad's or rust-minidump's
// as the call-site check's doing. All of these must hold:
//
//   - the dump is one processor's TestCallSiteEvidence walks (Breakpad's
//     corpus, the generated corpus, rust-minidump's test data, testdata/),
//     so every frame the check changes in it has been shown right by objdump
//     on the dump's bytes (and gdb where it backtraced the crash); a dump
//     from anywhere else (the perf corpus) gets no excuse;
//   - the default walk differs from the walk with
//     processor.Options.NoCode, the only option that differs;
//   - for a Breakpad output of the conformance goldens: ours equals
//     Breakpad's once, in each thread the check changes, the frames from
//     the first changed one on are removed from both (with Breakpad's
//     frames past _start removed as well, the other deliberate
//     difference): the rest of the output (headers, other threads, the
//     frames before, the module list) may not differ;
//   - for a rust-minidump JSON snapshot: the frame fields before each
//     thread's first changed frame are equal (the JSON test excuses only
//     frame fields).
func callSiteChecked(t *testing.T, args []string) bool {
	t.Helper()
	dump, roots := dumpAndRoots(args)
	if dump == "" || !callSiteEvidenceCovers(t, dump) {
		return false
	}
	cuts := callSiteCuts(t, dump, roots)
	if len(cuts) == 0 {
		return false
	}
	if g, ok := goldenFor(t, args); ok {
		want := readLines(t, g.expected)
		out, _, _ := runGolden(t, g)
		got := dropChangedFrames(splitLines(out), g.machine, cuts)
		for _, w := range [][]string{dropChangedFrames(want, g.machine, cuts), dropChangedFrames(dropPastEntry(want, g.machine), g.machine, cuts)} {
			if firstDiff(w, got) == "" {
				return true
			}
		}
		t.Logf("not excused as the call-site check's: outside the changed frames (from %v, thread: frame) ours differs from Breakpad's:\n%s",
			cuts, firstDiff(dropChangedFrames(want, g.machine, cuts), got))
		return false
	}
	if snap, ok := snapshotFor(args); ok {
		return jsonFramesAgreeBefore(t, args, snap, cuts)
	}
	t.Logf("%v: neither a conformance golden nor a JSON snapshot: not excused", args)
	return false
}

// callSiteEvidenceCovers reports whether dump lies in one of the
// directories whose dumps processor's TestCallSiteEvidence checks.
func callSiteEvidenceCovers(t *testing.T, dump string) bool {
	repo, err := corpus.RepoRoot()
	if err != nil {
		return false
	}
	shared := filepath.Join(repo, "..", "shared", "corpus")
	for _, dir := range []string{
		filepath.Join(shared, "breakpad", "dumps"),
		filepath.Join(shared, "breakpad-generated", "dumps"),
		filepath.Join(shared, "breakpad-generated", "stress", "dumps"),
		filepath.Join(shared, "rust-minidump", "testdata"),
		filepath.Join(repo, "testdata", "dumps"),
	} {
		if filepath.Clean(filepath.Dir(dump)) == filepath.Clean(dir) {
			return true
		}
	}
	t.Logf("%s: not among the dumps processor's TestCallSiteEvidence checks", dump)
	return false
}

// callSiteCuts walks dump with and without the call-site check and returns,
// for each thread (Breakpad's numbering) whose frames differ, the index of
// the first differing frame (Breakpad's frame numbering, inlined frames
// included).
func callSiteCuts(t *testing.T, dump string, roots []string) map[int]int {
	d, err := minidump.Open(dump)
	if err != nil {
		return nil
	}
	defer d.Close()
	var sup symfile.Supplier
	if len(roots) > 0 {
		sup = symcompress.NewDirSupplier(roots...)
	}
	walk := func(opts processor.Options) []*processor.Thread {
		st, err := processor.Process(d, sup, opts)
		if err != nil {
			return nil
		}
		th, _ := st.BreakpadThreads()
		return th
	}
	ours, scan := walk(processor.Options{Trace: true}), walk(processor.Options{NoCode: true, Trace: true})
	if len(ours) != len(scan) {
		t.Errorf("%s: %d threads, with NoCode %d", dump, len(ours), len(scan))
		return nil
	}
	cuts := map[int]int{}
	for i := range ours {
		a, b := ours[i].Frames, scan[i].Frames
		for j := range max(len(a), len(b)) {
			if j >= len(a) || j >= len(b) || !sameFrame(a[j], b[j]) {
				cuts[i] = j
				break
			}
		}
		// Where the code rules a word out first, the walk without code
		// names the symbols' reason.
		for _, th := range []*processor.Thread{ours[i], scan[i]} {
			if j := symbolCut(th); j >= 0 {
				if c, ok := cuts[i]; !ok || j < c {
					cuts[i] = j
				}
			}
		}
	}
	return cuts
}

// symbolCut returns the first frame of the traced thread th for which a
// scan passed over a word the symbols rule out as a return address (a
// function's first byte, the program's entry point, _fini, _init past its
// code, far from a PUBLIC: retaddr's symbolObjection), or len(th.Frames)
// when that happened after the last frame, or -1. Breakpad takes such
// words; processor's TestConformanceFrames checks that the word our scan
// passed over there is Breakpad's frame (symbolCheckedFrom).
func symbolCut(th *processor.Thread) int {
	rejected := func(steps []walker.Step) bool {
		for _, s := range steps {
			if s.Rule == walker.RuleScanChecked && !s.Taken && strings.Contains(s.Note, ": symbols: ") {
				return true
			}
		}
		return false
	}
	for j, f := range th.Frames {
		if rejected(f.Steps) {
			return j
		}
	}
	if rejected(th.WalkEnd) {
		return len(th.Frames)
	}
	return -1
}

func sameFrame(a, b *processor.Frame) bool {
	return a.Instruction == b.Instruction && a.Trust == b.Trust && a.Function == b.Function
}

// goldenFor returns the conformance golden run with args, if any.
func goldenFor(t *testing.T, args []string) (golden, bool) {
	want := strings.Join(args, "\x00")
	for _, g := range goldens(t) {
		if strings.Join(g.args, "\x00") == want {
			return g, true
		}
	}
	return golden{}, false
}

var machineFrameLine = regexp.MustCompile(`^(\d+)\|(\d+)\|`)

// dropChangedFrames removes from a Breakpad-format output (-m when
// machine) the frames of each thread in cuts from its cut on: in -m the
// frame lines, in the human output each frame's header and the lines under
// it (registers, "Found by:", stack contents) up to the next frame or
// the blank line that ends the thread.
func dropChangedFrames(lines []string, machine bool, cuts map[int]int) []string {
	var out []string
	thread, skipping := -1, false
	for _, l := range lines {
		if machine {
			if m := machineFrameLine.FindStringSubmatch(l); m != nil {
				th, _ := strconv.Atoi(m[1])
				fr, _ := strconv.Atoi(m[2])
				if cut, ok := cuts[th]; ok && fr >= cut {
					continue
				}
			}
			out = append(out, l)
			continue
		}
		switch {
		case humanThreadHeader.MatchString(l):
			thread, _ = strconv.Atoi(humanThreadHeader.FindStringSubmatch(l)[1])
			skipping = false
		case l == "":
			thread, skipping = -1, false
		case isFrameHeader(l):
			num, _, _ := strings.Cut(strings.TrimPrefix(l, " "), "  ")
			fr, _ := strconv.Atoi(num)
			cut, ok := cuts[thread]
			skipping = ok && fr >= cut
		}
		if !skipping {
			out = append(out, l)
		}
	}
	return out
}

var humanThreadHeader = regexp.MustCompile(`^Thread (\d+)`)

// snapshotFor returns the rust-minidump snapshot whose command line is
// args (the JSON test's args are the snapshot's with test-data paths made
// absolute).
func snapshotFor(args []string) (jsonSnapshot, bool) {
	for _, s := range jsonSnapshots {
		if len(s.args) != len(args) {
			continue
		}
		same := true
		for i, a := range s.args {
			b := args[i]
			if strings.HasPrefix(a, "--symbols-path=") && strings.HasPrefix(b, "--symbols-path=") {
				a, b = strings.TrimPrefix(a, "--symbols-path="), strings.TrimPrefix(b, "--symbols-path=")
			}
			if a != b && filepath.Base(a) != filepath.Base(b) {
				same = false
				break
			}
		}
		if same {
			return s, true
		}
	}
	return jsonSnapshot{}, false
}

var jsonFrameField = regexp.MustCompile(`^threads\[(\d+)\]\.frames\[(\d+)\]\.`)

// jsonFramesAgreeBefore reports whether our JSON output for args and the
// snapshot agree on every frame field of each changed thread's frames
// before its cut, and on every frame field of the other threads.
func jsonFramesAgreeBefore(t *testing.T, args []string, snap jsonSnapshot, cuts map[int]int) bool {
	root := corpus.Shared(t, "corpus", "rust-minidump")
	want := snapshotJSON(t, filepath.Join(root, "minidump-stackwalk", "tests", "snapshots", "test_minidump_stackwalk__"+snap.name+".snap"))
	var stdout, stderr strings.Builder
	if status := run(args, &stdout, &stderr); status != exitOK {
		return false
	}
	var o, w any
	if json.Unmarshal([]byte(stdout.String()), &o) != nil || json.Unmarshal(want, &w) != nil {
		return false
	}
	ours, theirs := map[string]string{}, map[string]string{}
	flattenJSON("", o, ours)
	flattenJSON("", w, theirs)
	for _, fields := range []map[string]string{ours, theirs} {
		for p := range fields {
			m := jsonFrameField.FindStringSubmatch(p)
			if m == nil {
				continue
			}
			th, _ := strconv.Atoi(m[1])
			fr, _ := strconv.Atoi(m[2])
			if cut, ok := cuts[th]; ok && fr >= cut {
				continue
			}
			if ours[p] != theirs[p] {
				t.Logf("not excused as the call-site check's: %s before the changed frames: ours %s, rust-minidump %s", p, ours[p], theirs[p])
				return false
			}
		}
	}
	return true
}

// TestCallSiteExcuses checks that callSiteChecked excuses the Breakpad
// outputs of every dump the call-site check changes, and only as far as
// the changed frames: the same output with the first frame of a changed
// thread altered (a frame before the change) is not excused.
func TestCallSiteExcuses(t *testing.T) {
	excused := 0
	for _, g := range goldens(t) {
		if !strings.HasSuffix(g.expected, ".stackwalk.txt") && !strings.HasSuffix(g.expected, ".machine.txt") {
			continue
		}
		dump, roots := "", []string(nil)
		for _, a := range g.args {
			switch {
			case strings.HasPrefix(a, "-"):
			case dump == "":
				dump = a
			default:
				roots = append(roots, a)
			}
		}
		cuts := callSiteCuts(t, dump, roots)
		if len(cuts) == 0 {
			continue
		}
		if shareOnlySets[g.set] {
			continue // compared by share only (testdata's arm and arm64 walks)
		}
		if _, ok := knownDifferences[g.name()]; ok {
			continue // excused as a whole, before the call-site check's frames
		}
		if !callSiteChecked(t, g.args) {
			t.Errorf("%s: the call-site check changes the walk but the output is not excused", g.name())
			continue
		}
		excused++
		want := readLines(t, g.expected)
		out, _, _ := runGolden(t, g)
		got := dropChangedFrames(splitLines(out), g.machine, cuts)
		altered, ok := alterFirstFrame(want, g.machine, cuts)
		if !ok {
			t.Errorf("%s: no frame 0 line of a changed thread found", g.name())
			continue
		}
		if firstDiff(dropChangedFrames(altered, g.machine, cuts), got) == "" {
			t.Errorf("%s: an altered frame before the change would be excused", g.name())
		}
	}
	t.Logf("%d Breakpad outputs excused as the call-site check's", excused)
	if excused == 0 {
		t.Skip("no dump of the corpus is changed by the call-site check")
	}
}

// alterFirstFrame returns lines with the frame-0 line of some thread in
// cuts changed.
func alterFirstFrame(lines []string, machine bool, cuts map[int]int) ([]string, bool) {
	out := append([]string(nil), lines...)
	for th := range cuts {
		for i, l := range out {
			if machine && strings.HasPrefix(l, fmt.Sprintf("%d|0|", th)) ||
				!machine && i > 0 && humanThreadHeader.MatchString(out[i-1]) && humanThreadHeader.FindStringSubmatch(out[i-1])[1] == strconv.Itoa(th) {
				out[i] = l + "x"
				return out, true
			}
		}
	}
	return out, false
}
