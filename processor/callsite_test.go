package processor

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// TestCallSiteEvidence holds every frame the call-site check changes to an
// independent disassembler. The default walk reads the code a dump holds
// before a stack-scan candidate (walker/internal/retaddr): a candidate no
// call instruction precedes is dropped, and a direct call to the callee's
// own function is preferred. Options.NoCode walks without it, as
// Breakpad and rust-minidump do. For every dump of Breakpad's corpus, the
// generated corpus, rust-minidump's test data and testdata/ (x86, amd64,
// arm, arm64) where the two walks differ, each thread's first differing
// physical frame is checked with GNU objdump on the dump's own bytes:
//
//   - the word Breakpad's scan took: objdump finds no call instruction
//     ending exactly at it in any decoding that starts in the bytes before
//     it (x86: every start 1..15 bytes back; Thumb: 2 and 4; ARM: 4 and 8,
//     with the `mov lr, pc` idiom; arm64: 4), or else a direct call to
//     another function while ours is confirmed;
//   - the word ours took: objdump finds a call ending at it; when the call
//     is direct to the start of the callee's function (from the symbol
//     file, read here without package symfile), ours is "confirmed";
//   - where gdb backtraced the same crash (testdata/oracle/*.frames.txt),
//     our frames from the callee on equal gdb's; where no gdb backtrace
//     exists, our frames from the difference on are Breakpad's with
//     exactly the scanned words removed that objdump shows no call before
//     (linux_null_dereference: 0x401edd after a jmp, 0x401f2e after a ret).
//
// One change is no scan's: a frameless frame 0 returns through the word at
// its stack pointer when a direct call to its function precedes that word
// (retaddr.FramelessLeaf), where the frame pointer gives the record of its
// caller; it is held to gdb. So is a frame record above a deeper frame
// whose return address follows a direct call to another function (the
// record is a caller's), where ours is a direct call to the callee's. Another: a sigreturn trampoline known only by
// its code (i386's vDSO __kernel_sigreturn) is looked up at its first byte
// and the frame above it is read from the kernel's signal frame; also held
// to gdb. Where the walk without code took the start function's frame
// below the return into the program's entry (walker/arm byStartFrame), it
// skipped frames that ours with the code finds: objdump must show a call
// before that word.
//
// Beyond the changed frames, every scanned caller frame of every default
// walk must follow a call per objdump where the dump holds the code, and
// the other caller frames (CFI, frame pointer) are tallied, which runs each
// architecture's objdump on real return addresses (arm64 walks scan none).
//
// Any failure here is a walker bug (or a disassembler disagreement) to be
// reported, not papered over. The summary table is logged (-v).
// callSiteKnownWrong lists the testdata dumps whose walk is known to differ
// from the oracle, by the first frame that differs (walker/arm's knownWrong
// says why): the frames before it must equal the oracle's.
var callSiteKnownWrong = map[string]int{"arm-throw": 9}

func TestCallSiteEvidence(t *testing.T) {
	for _, tool := range []string{"objdump", "arm-linux-gnueabihf-objdump", "aarch64-linux-gnu-objdump"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (binutils, binutils-arm-linux-gnueabihf, binutils-aarch64-linux-gnu): %v", tool, err)
		}
	}
	var rows []string
	dumps, threads := 0, 0
	sets := map[string]int{}
	tally := map[string]*scannedTally{}
	for _, c := range callSiteCases(t) {
		n := checkCallSites(t, c, &rows, tally)
		if n > 0 {
			dumps++
			threads += n
			sets[c.set]++
		}
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "dump\tthread\tBreakpad's word\twhy dropped (objdump)\tours\tobjdump at ours\trest of the walk\tgdb")
	for _, r := range rows {
		fmt.Fprintln(tw, r)
	}
	tw.Flush()
	t.Logf("%d dump walks, %d threads where the call-site check changes the walk (by set: %v):\n%s", dumps, threads, sets, b.String())
	for _, arch := range []string{"x86", "amd64", "arm", "arm64"} {
		n := tally[arch]
		if n == nil || n.call+n.otherCall == 0 {
			t.Errorf("%s: no caller frame with code before it was checked: objdump's use for %s is untested", arch, arch)
			continue
		}
		t.Logf("%-5s caller frames of the default walks: scanned %4d after a call per objdump, %4d without code; other %4d after a call, %d not (listed below)",
			arch, n.call, n.noCode, n.otherCall, len(n.otherNoCall))
		for _, l := range n.otherNoCall {
			t.Logf("  not after a call (%s): %s", arch, l)
		}
	}
	if dumps == 0 {
		t.Error("no dump's walk changes with the call-site check: the corpora hold code windows, so this is a regression or a missing corpus")
	}
}

// scannedTally counts the caller frames of the default walks of one
// architecture: scanned ones with a call before them per objdump and
// without code; others (CFI, frame pointer) with a call before them, and
// those without (signal frames, entry points).
type scannedTally struct {
	call, noCode, otherCall int
	otherNoCall             []string
}

// callSiteCase is a dump walked with the given symbol roots (none: no
// supplier) and, where gdb backtraced the same crash, its frames file.
type callSiteCase struct {
	set, name, dump string
	roots           []string
	gdbFrames       string // testdata/oracle/NAME.frames.txt
	gdbText         string // breakpad-generated/gdb/NAME.gdb.txt (gdb's bt text)
}

// callSiteCases lists every dump of the four corpora with the symbol roots
// the conformance tests use.
func callSiteCases(t *testing.T) []callSiteCase {
	var cases []callSiteCase
	root, err := corpus.RepoRoot()
	if err != nil {
		t.Skip(err)
	}
	// Without ../shared, testdata/ alone is checked.
	bp := filepath.Join(root, "..", "shared", "corpus", "breakpad")
	if _, err := os.Stat(bp); err != nil {
		t.Logf("shared corpus not present (%v): only testdata/ is checked", err)
	}
	ds, _ := filepath.Glob(filepath.Join(bp, "dumps", "*.dmp"))
	for _, d := range ds {
		name := strings.TrimSuffix(filepath.Base(d), ".dmp")
		roots := []string{filepath.Join(bp, "symbols")}
		if name == "linux_inline" {
			roots = append(roots, filepath.Join(bp, "symbols-extra"))
		}
		cases = append(cases, callSiteCase{set: "breakpad", name: name, dump: d, roots: roots})
	}
	gen := filepath.Join(filepath.Dir(bp), "breakpad-generated")
	ds, _ = filepath.Glob(filepath.Join(gen, "dumps", "*.dmp"))
	for _, d := range ds {
		name := strings.TrimSuffix(filepath.Base(d), ".dmp")
		gdb := filepath.Join(gen, "gdb", name+".gdb.txt")
		cases = append(cases,
			callSiteCase{set: "generated", name: name, dump: d, roots: []string{filepath.Join(gen, "symbols")}, gdbText: gdb},
			callSiteCase{set: "generated-nosyms", name: name, dump: d, gdbText: gdb})
		if name == "linux-amd64-inline_chain" {
			cases = append(cases, callSiteCase{set: "generated-inline", name: name, dump: d,
				roots: []string{filepath.Join(gen, "symbols-inline"), filepath.Join(gen, "symbols")}, gdbText: gdb})
		}
	}
	ds, _ = filepath.Glob(filepath.Join(gen, "stress", "dumps", "*.dmp"))
	for _, d := range ds {
		name := strings.TrimSuffix(filepath.Base(d), ".dmp")
		cases = append(cases,
			callSiteCase{set: "stress", name: name, dump: d, roots: []string{filepath.Join(gen, "stress", "symbols"), filepath.Join(gen, "symbols")}},
			callSiteCase{set: "stress-nosyms", name: name, dump: d})
	}
	rm := filepath.Join(filepath.Dir(bp), "rust-minidump", "testdata")
	ds, _ = filepath.Glob(filepath.Join(rm, "*.dmp"))
	for _, d := range ds {
		name := strings.TrimSuffix(filepath.Base(d), ".dmp")
		cases = append(cases, callSiteCase{set: "rust-minidump", name: name, dump: d, roots: []string{filepath.Join(rm, "symbols")}},
			callSiteCase{set: "rust-minidump-nosyms", name: name, dump: d}) // its linux_json_pretty snapshot
	}
	td := filepath.Join(root, "testdata")
	ds, _ = filepath.Glob(filepath.Join(td, "dumps", "*.dmp"))
	for _, d := range ds {
		name := strings.TrimSuffix(filepath.Base(d), ".dmp")
		cases = append(cases, callSiteCase{set: "testdata", name: name, dump: d, roots: []string{filepath.Join(td, "symbols")},
			gdbFrames: filepath.Join(td, "oracle", name+".frames.txt")})
	}
	if len(cases) < 30 {
		t.Fatalf("only %d dump walks found", len(cases))
	}
	return cases
}

// checkCallSites walks c's dump with and without the call-site check and
// checks each thread's first differing physical frame; it returns the
// number of threads that differ and appends one summary row per thread.
func checkCallSites(t *testing.T, c callSiteCase, rows *[]string, tally map[string]*scannedTally) int {
	d, err := minidump.Open(c.dump)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var sup symfile.Supplier
	if len(c.roots) > 0 {
		sup = symcompress.NewDirSupplier(c.roots...)
	}
	ours, errOurs := Process(d, sup, Options{})
	scan, errScan := Process(d, sup, Options{NoCode: true})
	if errOurs != nil || errScan != nil {
		if errOurs == nil || errScan == nil || errOurs.Error() != errScan.Error() {
			t.Errorf("%s: default walk: %v, NoCode walk: %v", c.dump, errOurs, errScan)
		}
		return 0 // no thread list: nothing walked either way
	}
	mem, _ := d.Memory() // read errors leave regions out: the bytes are then "not held"
	w := &callSiteWalks{t: t, c: c, mem: mem, cache: map[uint64]callEvidence{}}
	oursThreads, _ := ours.BreakpadThreads()
	scanThreads, _ := scan.BreakpadThreads()
	if len(oursThreads) != len(scanThreads) {
		t.Fatalf("%s: %d threads, with NoCode %d", c.dump, len(oursThreads), len(scanThreads))
	}
	differing := 0
	for i := range oursThreads {
		fo, fs := physical(oursThreads[i].Frames), physical(scanThreads[i].Frames)
		w.tallyCallers(i, fo, tally)
		j := 0
		for j < len(fo) && j < len(fs) && fo[j].Instruction == fs[j].Instruction && fo[j].Trust == fs[j].Trust {
			j++
		}
		if j == len(fo) && j == len(fs) {
			if !sameFrames(oursThreads[i].Frames, scanThreads[i].Frames) {
				t.Errorf("%s thread %d: the walks differ only in inline frames", c.name, i)
			}
			continue
		}
		differing++
		label := fmt.Sprintf("%s %s thread %d (id %d) frame %d", c.set, c.name, i, oursThreads[i].ID, j)
		if j == 0 {
			t.Errorf("%s: the context frames differ", label)
			continue
		}
		*rows = append(*rows, w.difference(label, i, oursThreads[i].ID, fo, fs, j))
	}
	return differing
}

// callSiteWalks is what checking one dump's two walks needs: the dump's
// memory, objdump's evidence by return address, gdb's frames.
type callSiteWalks struct {
	t              *testing.T
	c              callSiteCase
	mem            *minidump.MemoryList
	cache          map[uint64]callEvidence
	gdb            map[uint32][]uint64 // gdb's frames, with libgcc's where gdb stops (oracle.ReadExpected)
	entryMayFollow bool
}

// examine is examineCallSite, once per return address.
func (w *callSiteWalks) examine(arch minidump.Arch, ra uint64) callEvidence {
	ev, ok := w.cache[ra]
	if !ok {
		ev = examineCallSite(w.t, w.mem, arch, ra)
		w.cache[ra] = ev
	}
	return ev
}

// tallyCallers checks thread i's caller frames fo of the default walk:
// every scanned frame, changed or not, must follow a call where the dump
// holds the code before it. Other caller frames (CFI, frame pointer) are
// tallied: they exercise the disassembler where no scan runs (arm64).
func (w *callSiteWalks) tallyCallers(i int, fo []*Frame, tally map[string]*scannedTally) {
	for k, f := range fo {
		if k == 0 {
			continue
		}
		name := f.Context.Arch.String()
		if tally[name] == nil {
			tally[name] = &scannedTally{}
		}
		n := tally[name]
		ev := w.examine(f.Context.Arch, frameIP(f))
		switch {
		case !ev.held && f.Trust.Scanned():
			n.noCode++
		case !ev.held:
		case ev.call != nil && f.Trust.Scanned():
			n.call++
		case ev.call != nil:
			n.otherCall++
		case f.Trust.Scanned():
			w.t.Errorf("%s %s thread %d frame %d: the default walk took the scanned word %#x, but objdump finds no call ending there:\n%s",
				w.c.set, w.c.name, i, k, frameIP(f), ev.listing)
		default:
			n.otherNoCall = append(n.otherNoCall, fmt.Sprintf("%s/%s thread %d frame %d %#x %s (%s; objdump: %s)",
				w.c.set, w.c.name, i, k, frameIP(f), frameName(f), f.Trust.ShortName(), ev.describe(0, false)))
		}
	}
}

// callSiteDiff is a thread whose walks differ from physical frame j on:
// ours (fo) and the one without code (fs, Breakpad's scans), the callee
// above the difference, and objdump's evidence at either word.
type callSiteDiff struct {
	label           string
	fo, fs          []*Frame
	j               int
	arch            minidump.Arch
	start           uint64 // the callee's function's start, when startOK
	startOK         bool
	bpWord, ourWord uint64
	bp, our         callEvidence
	ourConfirmed    bool // ours follows a direct call to the callee's function
}

// difference checks thread i's walks, which differ from frame j on, and
// returns its summary row.
func (w *callSiteWalks) difference(label string, i int, id uint32, fo, fs []*Frame, j int) string {
	t, c := w.t, w.c
	callee := fo[j-1]
	d := callSiteDiff{label: label, fo: fo, fs: fs, j: j, arch: callee.Context.Arch}
	d.start, d.startOK = functionStart(t, callee, c.roots)
	bpCol, whyCol, oursCol, atOursCol := "(walk ends)", "-", "(walk ends)", "-"
	if j < len(fs) {
		d.bpWord = frameIP(fs[j])
		d.bp = w.examine(d.arch, d.bpWord)
		bpCol = fmt.Sprintf("%#x %s (%s)", d.bpWord, frameName(fs[j]), fs[j].Trust.ShortName())
	}
	if j < len(fo) {
		d.ourWord = frameIP(fo[j])
		d.our = w.examine(d.arch, d.ourWord)
		oursCol = fmt.Sprintf("%#x %s (%s)", d.ourWord, frameName(fo[j]), fo[j].Trust.ShortName())
		atOursCol = d.our.describe(d.start, d.startOK)
	}
	d.ourConfirmed = j < len(fo) && d.our.call != nil && d.our.call.direct && d.startOK && d.our.call.target == d.start
	if j < len(fo) && fo[j].Trust.Scanned() && d.our.held && d.our.call == nil {
		t.Errorf("%s: ours took %#x, but objdump finds no call ending there:\n%s", label, d.ourWord, d.our.listing)
	}
	if j < len(fs) {
		whyCol = w.whyDropped(&d)
	}
	if d.ourConfirmed {
		atOursCol = "confirmed: " + atOursCol
	}
	restCol := w.restOfWalk(&d)
	gdbCol := w.compareGDB(&d, id)
	return strings.Join([]string{c.set + "/" + c.name, strconv.Itoa(i), bpCol, whyCol, oursCol, atOursCol, restCol, gdbCol}, "\t")
}

// whyDropped says why ours has no frame at Breakpad's word d.bpWord, and
// fails where no evidence shows it.
func (w *callSiteWalks) whyDropped(d *callSiteDiff) string {
	t, fo, fs, j, bp := w.t, d.fo, d.fs, d.j, d.bp
	switch {
	case !fs[j].Trust.Scanned() && j == 1 && j < len(fo) && fo[j].Rule == walker.RuleLeafReturn && d.our.call != nil && d.ourConfirmed:
		// A frameless frame 0 (retaddr.FramelessLeaf): the
		// word at its stack pointer follows a direct call to
		// its function, so the frame record the frame pointer
		// gives is the caller's; gdb must agree (compareGDB).
		return "the record is the caller's: " + bp.describe(d.start, d.startOK)
	case !fs[j].Trust.Scanned() && j+1 < len(fo) && fo[j+1].Rule == walker.RuleSignal && frameIP(fo[j]) == d.bpWord:
		// A sigreturn trampoline known by its code in the
		// dump (a vDSO without symbols): looked up at its
		// first byte, and the frame above it read from the
		// kernel's signal frame; gdb must agree (compareGDB).
		return "signal trampoline by its code"
	case fs[j].Trust == walker.TrustFramePointer && d.ourConfirmed && bp.call != nil && bp.call.direct && bp.call.target != d.start:
		// The frame record at the frame pointer returns after a
		// direct call to another function than the callee's:
		// the callee keeps no record (arm64-large's large_mid
		// under large_vla's), ours follows a direct call to the
		// callee's function; gdb must agree (compareGDB).
		return "the record is a caller's: " + bp.describe(d.start, d.startOK)
	case fs[j].Rule == walker.RuleScanEntry && bp.call != nil:
		// Without code the scan took the start function's frame below
		// the return into the entry function (walker/arm byStartFrame):
		// a return address per objdump, the frames between skipped; ours
		// with the code finds them (compareGDB).
		return "the start function's frame, frames skipped: " + bp.describe(d.start, d.startOK)
	case !fs[j].Trust.Scanned():
		t.Errorf("%s: Breakpad's frame %#x was not found by a scan (%s): not a call-site change", d.label, d.bpWord, fs[j].Trust)
	case !bp.held:
		t.Errorf("%s: the dump does not hold the %d bytes before Breakpad's word %#x: nothing shows it is no return address", d.label, bp.need, d.bpWord)
	case bp.call == nil:
		return "no call: " + bp.describe(d.start, d.startOK)
	case bp.call.direct && d.ourConfirmed && bp.call.target != d.start:
		return "calls another function: " + bp.describe(d.start, d.startOK)
	default:
		t.Errorf("%s: ours dropped Breakpad's %#x, but objdump shows a call ending there (%s) and ours %#x is no direct call to the callee's start (%#x known %v):\nBreakpad's word:\n%s\nours:\n%s",
			d.label, d.bpWord, bp.call.text, d.ourWord, d.start, d.startOK, bp.listing, d.our.listing)
	}
	return "-"
}

// restOfWalk: where no gdb backtrace exists, Breakpad's own frames are the
// oracle for the rest of the walk: ours must be Breakpad's (the NoCode
// walk, which TestConformanceFrames holds to Breakpad's output) with
// exactly the scanned words removed that objdump shows no call before.
func (w *callSiteWalks) restOfWalk(d *callSiteDiff) string {
	var kept []*Frame
	var dropped []string
	for _, f := range d.fs[d.j:] {
		if f.Trust.Scanned() {
			if ev := w.examine(d.arch, frameIP(f)); ev.held && ev.call == nil {
				dropped = append(dropped, fmt.Sprintf("%#x", frameIP(f)))
				continue
			}
		}
		kept = append(kept, f)
	}
	if sameFrames(kept, d.fo[d.j:]) {
		return "= Breakpad's without " + strings.Join(dropped, ", ")
	}
	if w.c.gdbFrames == "" {
		w.t.Errorf("%s: with no gdb oracle, our frames from the difference on (%s) must be Breakpad's without the words no call precedes (%s)",
			d.label, frameList(d.fo[d.j:]), frameList(kept))
	}
	return "differs (" + strconv.Itoa(len(dropped)) + " no-call words)"
}

// compareGDB compares our frames from the callee on with gdb's backtrace
// of thread id, where the case has one.
func (w *callSiteWalks) compareGDB(d *callSiteDiff, id uint32) string {
	t, c, fo, j := w.t, w.c, d.fo, d.j
	switch {
	case c.gdbFrames != "":
		if w.gdb == nil {
			exp := oracle.ReadExpected(t, filepath.Dir(c.gdbFrames), strings.TrimSuffix(filepath.Base(c.gdbFrames), ".frames.txt"))
			w.gdb, w.entryMayFollow = exp.Frames, exp.EntryMayFollow
		}
		want, ok := w.gdb[id]
		if !ok {
			t.Errorf("%s: thread not in %s", d.label, c.gdbFrames)
			break
		}
		got := make([]uint64, len(fo))
		for k, f := range fo {
			got[k] = frameIP(f)
			if d.arch == minidump.ArchARM {
				got[k] &^= 1
			}
		}
		if w.entryMayFollow && len(got) == len(want)+1 && fo[len(want)].Function == "_start" {
			got = got[:len(want)] // libgcc's backtrace (the oracle there) cannot report _start
		}
		if from, known := callSiteKnownWrong[c.name]; known && c.set == "testdata" && len(want) >= from && len(got) >= from &&
			j-1 < from && equalUint64s(got[j-1:from], want[j-1:from]) && !equalUint64s(got, want) {
			return fmt.Sprintf("= gdb (frames %d-%d), known to differ from %d", j-1, from-1, from)
		}
		if len(want) < j || !equalUint64s(got[j-1:], want[j-1:]) {
			t.Errorf("%s: our frames from the callee on %x, gdb's %x", d.label, got[min(j-1, len(got)):], want[min(j-1, len(want)):])
			return "DIFFERS"
		}
		return fmt.Sprintf("= gdb (frames %d-%d)", j-1, len(want)-1)
	case c.gdbText != "":
		// gdb's backtrace text names frames without an address where
		// the PC starts a line; no dump of this corpus changed when
		// this test was written, so there is no comparison to make.
		t.Errorf("%s: the walk changes, but this test does not read gdb's backtrace text (%s): add the comparison", d.label, c.gdbText)
	}
	return "no gdb oracle"
}

// physical returns the frames that are not inlined frames.
func physical(frames []*Frame) []*Frame {
	var out []*Frame
	for _, f := range frames {
		if f.Trust != walker.TrustInline {
			out = append(out, f)
		}
	}
	return out
}

func sameFrames(a, b []*Frame) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Instruction != b[i].Instruction || a[i].Trust != b[i].Trust || a[i].Function != b[i].Function {
			return false
		}
	}
	return true
}

func frameList(frames []*Frame) string {
	var parts []string
	for _, f := range frames {
		parts = append(parts, fmt.Sprintf("%#x/%s", frameIP(f), f.Trust.ShortName()))
	}
	return strings.Join(parts, " ")
}

func equalUint64s(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// frameIP is the frame's IP register: for a caller, the return address as
// saved (ARM: with the Thumb bit of the caller's code).
func frameIP(f *Frame) uint64 {
	ip, _ := f.Context.IP()
	return ip
}

func frameName(f *Frame) string {
	switch {
	case f.Function != "":
		return fmt.Sprintf("%s+%#x", f.Function, f.FunctionOffset())
	case f.Module != nil:
		return fmt.Sprintf("%s+%#x", filepath.Base(f.Module.CodeFile), f.ModuleOffset())
	}
	return "?"
}

// functionStart returns the absolute start address of the function that
// contains the callee frame's instruction, read from the module's symbol
// file here (not through package symfile): the FUNC record covering it, or
// else the closest PUBLIC record at or below it. On ARM the Thumb bit of a
// PUBLIC address is cleared.
func functionStart(t *testing.T, callee *Frame, roots []string) (uint64, bool) {
	m := callee.Module
	if m == nil || len(roots) == 0 {
		return 0, false
	}
	base := filepath.Base(strings.ReplaceAll(m.DebugFile, `\`, "/"))
	name := base + ".sym"
	if strings.HasSuffix(strings.ToLower(base), ".pdb") {
		name = base[:len(base)-4] + ".sym"
	}
	var data []byte
	for _, r := range roots {
		p := filepath.Join(r, base, m.DebugID, name)
		if b, err := os.ReadFile(p); err == nil {
			data = b
			break
		}
		if f, err := os.Open(p + ".gz"); err == nil {
			zr, err := gzip.NewReader(f)
			if err == nil {
				data, err = io.ReadAll(zr)
			}
			f.Close()
			if err != nil {
				t.Fatalf("%s.gz: %v", p, err)
			}
			break
		}
		if _, err := os.Stat(p + ".zst"); err == nil {
			data = corpus.ReadZstd(t, p+".zst")
			break
		}
	}
	if data == nil {
		return 0, false
	}
	rel := callee.Instruction - m.SymbolBase
	arm := callee.Context.Arch == minidump.ArchARM
	var public uint64
	found := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 1 && fields[1] == "m" {
			fields = append(fields[:1], fields[2:]...)
		}
		switch {
		case len(fields) >= 3 && fields[0] == "FUNC":
			addr, err1 := strconv.ParseUint(fields[1], 16, 64)
			size, err2 := strconv.ParseUint(fields[2], 16, 64)
			if err1 == nil && err2 == nil && addr <= rel && rel < addr+size {
				return m.SymbolBase + addr, true
			}
		case len(fields) >= 2 && fields[0] == "PUBLIC":
			addr, err := strconv.ParseUint(fields[1], 16, 64)
			if arm {
				addr &^= 1
			}
			if err == nil && addr <= rel && (!found || addr > public) {
				public, found = addr, true
			}
		}
	}
	return m.SymbolBase + public, found
}

// callEvidence is what objdump shows just before a candidate return address.
type callEvidence struct {
	held    bool   // the dump holds enough bytes before the address to rule calls out
	need    int    // how many bytes before the address that is
	have    int    // how many of them the dump holds
	last    string // an instruction objdump decodes ending at the address ("" when none)
	call    *disasmInsn
	listing string // the objdump runs, for failure messages
}

func (e callEvidence) describe(start uint64, startOK bool) string {
	switch {
	case !e.held:
		return fmt.Sprintf("no code (%d of the %d bytes before it held)", e.have, e.need)
	case e.have < e.need && e.call == nil:
		return fmt.Sprintf("%s (decoded from the %d of %d bytes before it held)", e.last, e.have, e.need)
	case e.call == nil && e.last == "":
		return "no instruction ends there"
	case e.call == nil:
		return e.last
	case e.call.direct && startOK && e.call.target != start:
		return fmt.Sprintf("%s (callee starts at %#x)", e.call.text, start)
	}
	return e.call.text
}

// disasmInsn is one instruction of objdump's output.
type disasmInsn struct {
	addr   uint64
	size   int
	text   string // mnemonic and operands
	call   bool
	direct bool   // a call to an immediate target
	target uint64 // the target of a direct call
}

// examineCallSite runs objdump on the dump's bytes before (and a little
// after) ra, starting at each offset an instruction ending at ra could
// start at, and returns the call instruction found ending exactly at ra.
func examineCallSite(t *testing.T, mem *minidump.MemoryList, arch minidump.Arch, ra uint64) callEvidence {
	var tool string
	var args []string
	var starts []int // bytes before the end address where a decoding starts
	end := ra
	switch arch {
	case minidump.ArchX86:
		tool, args = "objdump", []string{"-m", "i386", "-M", "intel"}
		starts = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15} // an x86 instruction is at most 15 bytes
	case minidump.ArchAMD64:
		tool, args = "objdump", []string{"-m", "i386:x86-64", "-M", "intel"}
		starts = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	case minidump.ArchARM:
		tool, args = "arm-linux-gnueabihf-objdump", []string{"-m", "arm"}
		end = ra &^ 1 & 0xffffffff
		if ra&1 == 1 {
			args = append(args, "-M", "force-thumb")
			starts = []int{2, 4} // 16- and 32-bit Thumb instructions
		} else {
			starts = []int{4, 8} // a word; `mov lr, pc` before a branch to a register
		}
	case minidump.ArchARM64, minidump.ArchARM64Old:
		tool, args = "aarch64-linux-gnu-objdump", []string{"-m", "aarch64"}
		starts = []int{4}
	default:
		t.Fatalf("no disassembler for %v", arch)
	}
	// The decodings start only where the dump holds every byte up to the
	// address. x86 prefixes may make a call up to 15 bytes long, but
	// without them the longest call (FF /2 with SIB and disp32) is 7
	// bytes, the walker's own minimum for "no call": with 7 to 14 bytes
	// held the evidence covers every call without redundant prefixes.
	minHeld := starts[len(starts)-1]
	if arch == minidump.ArchX86 || arch == minidump.ArchAMD64 {
		minHeld = 7
	}
	ev := callEvidence{need: starts[len(starts)-1]}
	for ev.have < ev.need && end > uint64(ev.have) {
		var b [1]byte
		if mem.ReadMemory(end-uint64(ev.have)-1, b[:]) != nil {
			break
		}
		ev.have++
	}
	ev.held = ev.have >= minHeld
	var listing strings.Builder
	var lastFromLongest string
	for _, k := range starts {
		if k > ev.have {
			break
		}
		from := end - uint64(k)
		buf := make([]byte, k)
		if mem.ReadMemory(from, buf) != nil {
			t.Fatalf("%#x: %d bytes held before it, but reading %d fails", end, ev.have, k)
		}
		// Bytes after the address let objdump decode an instruction
		// that straddles it (and so ends elsewhere).
		for i := 0; i < 16; i++ {
			var b [1]byte
			if mem.ReadMemory(end+uint64(i), b[:]) != nil {
				break
			}
			buf = append(buf, b[0])
		}
		insns, out := runObjdump(t, tool, args, from, buf)
		fmt.Fprintf(&listing, "$ %s %s --adjust-vma=%#x (%d bytes from %#x)\n%s", tool, strings.Join(args, " "), from, len(buf), from, out)
		var prev *disasmInsn
		for i := range insns {
			in := &insns[i]
			if in.addr+uint64(in.size) != end {
				prev = in
				continue
			}
			lastFromLongest = in.text
			if in.call {
				ev.call = in
			} else if arch == minidump.ArchARM && ra&1 == 0 && prev != nil && prev.addr+uint64(prev.size) == in.addr &&
				armMovLRPC.MatchString(prev.text) && armBranchToRegister.MatchString(in.text) {
				// Pre-ARMv5 call: mov lr, pc; then bx/mov pc/ldr pc.
				ev.call = &disasmInsn{addr: prev.addr, size: prev.size + in.size, text: prev.text + "; " + in.text, call: true}
			}
		}
		if ev.call != nil {
			break
		}
	}
	ev.last = lastFromLongest
	ev.listing = listing.String()
	return ev
}

var (
	objdumpLine         = regexp.MustCompile(`^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(.*)$`)
	x86Prefixes         = map[string]bool{"bnd": true, "notrack": true, "data16": true, "data32": true, "addr16": true, "addr32": true, "cs": true, "ds": true, "es": true, "ss": true, "fs": true, "gs": true, "lock": true, "rep": true, "repz": true, "repnz": true, "repe": true, "repne": true, "xacquire": true, "xrelease": true}
	armCall             = regexp.MustCompile(`^blx?(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?(\.w|\.n)?$`)
	arm64Call           = regexp.MustCompile(`^(bl|blr|blraa|blrab|blraaz|blrabz)$`)
	armMovLRPC          = regexp.MustCompile(`^mov(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?\s+lr, pc$`)
	armBranchToRegister = regexp.MustCompile(`^(bx\S*\s+r|mov\S*\s+pc, r|ldr\S*\s+pc, )`)
	hexTarget           = regexp.MustCompile(`^(?:0x)?([0-9a-f]+)$`)
)

// runObjdump disassembles code (loaded at vma) with tool and returns the
// instructions and objdump's output.
func runObjdump(t *testing.T, tool string, args []string, vma uint64, code []byte) ([]disasmInsn, string) {
	f, err := os.CreateTemp(t.TempDir(), "code-*.bin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(code); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cmdArgs := append([]string{"-D", "-b", "binary", "--insn-width=16", fmt.Sprintf("--adjust-vma=%#x", vma)}, args...)
	out, err := exec.Command(tool, append(cmdArgs, f.Name())...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", tool, cmdArgs, err, out)
	}
	var insns []disasmInsn
	var listing strings.Builder
	x86 := tool == "objdump"
	for _, line := range strings.Split(string(out), "\n") {
		m := objdumpLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		listing.WriteString(line + "\n")
		addr, _ := strconv.ParseUint(m[1], 16, 64)
		in := disasmInsn{addr: addr, size: len(strings.ReplaceAll(m[2], " ", "")) / 2, text: strings.Join(strings.Fields(m[3]), " ")}
		fields := strings.Fields(m[3])
		if x86 {
			for len(fields) > 0 && (x86Prefixes[fields[0]] || strings.HasPrefix(fields[0], "rex")) {
				fields = fields[1:]
			}
			in.call = len(fields) > 0 && (strings.HasPrefix(fields[0], "call") || strings.HasPrefix(fields[0], "lcall"))
		} else if len(fields) > 0 {
			in.call = armCall.MatchString(fields[0]) || arm64Call.MatchString(fields[0])
		}
		// A direct call has one operand, an address; objdump comments
		// follow a ';' (ARM) or '#' (x86).
		if in.call && len(fields) >= 2 {
			if hm := hexTarget.FindStringSubmatch(fields[1]); hm != nil && (len(fields) == 2 || strings.HasPrefix(fields[2], ";") || strings.HasPrefix(fields[2], "<")) {
				in.target, _ = strconv.ParseUint(hm[1], 16, 64)
				in.direct = true
			}
		}
		insns = append(insns, in)
	}
	return insns, listing.String()
}
