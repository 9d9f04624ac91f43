package processor_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/coreconv"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/report"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// twinWalk is one thread's physical frames in gdb's convention (the
// context frame's pc, then callers' return addresses; Thumb bit clear).
type twinWalk struct {
	id    uint32
	pcs   []uint64
	rules []walker.Rule // the rule that found each frame
	funcs []string      // each frame's function
}

func walkTwin(t *testing.T, name string, data []byte, syms symfile.Supplier, opts processor.Options) ([]twinWalk, *processor.ProcessState) {
	t.Helper()
	d, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	st, err := processor.Process(d, syms, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	threads, _ := st.BreakpadThreads()
	var out []twinWalk
	for _, th := range threads {
		w := twinWalk{id: th.ID}
		for _, f := range th.Frames {
			if f.Trust == walker.TrustInline {
				continue
			}
			w.pcs = append(w.pcs, framePC(f))
			w.rules = append(w.rules, f.Rule)
			w.funcs = append(w.funcs, f.Function)
		}
		out = append(out, w)
	}
	return out, st
}

// framePC is the frame's address as gdb lists it: on arm and arm64 the
// instruction pointer (Thumb bit clear), on x86 and amd64 the return
// address (as TestTestdataAgainstGDB compares them).
func framePC(f *processor.Frame) uint64 {
	switch f.Context.Arch {
	case minidump.ArchARM:
		pc, _ := f.Context.IP()
		return pc &^ 1
	case minidump.ArchARM64:
		pc, _ := f.Context.IP()
		return pc
	}
	return f.ReturnAddress()
}

// twinScore compares a walk with the oracle's frames: leading frames
// equal, oracle frames found in order (the longest common subsequence:
// a wrong frame between right ones does not hide those after it), frames
// at an address the oracle's thread does not have, frames in all.
type twinScore struct{ prefix, inOrder, foreign, total int }

func scoreTwin(ours, want []uint64) twinScore {
	s := twinScore{total: len(ours)}
	for s.prefix < len(ours) && s.prefix < len(want) && ours[s.prefix] == want[s.prefix] {
		s.prefix++
	}
	in := map[uint64]bool{}
	for _, pc := range want {
		in[pc] = true
	}
	for _, pc := range ours {
		if !in[pc] {
			s.foreign++
		}
	}
	s.inOrder = commonSubsequence(ours, want)
	return s
}

func commonSubsequence(a, b []uint64) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
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
	return prev[len(b)]
}

// twinShortfalls lists the threads ("dump client thread-index") whose walk
// on a client-shaped twin finds fewer of the oracle's frames (leading or
// in order) than Breakpad's walk of the same twin up to its first invented
// frame, and why. (Where Breakpad's walk reaches more only past a frame
// the oracle lacks, the test says so and accepts it: a scan that takes a
// stale return address reaches the frames above it by luck, and the same
// scan invents frames in between; ours stops where it cannot prove the
// next frame.)
var twinShortfalls = map[string]string{
	// None now. (arm-strfn's stacks twin was: glibc's strlen, a CFI-less
	// leaf without its code, had pushed r4, r5; walker/arm
	// leafPushesWithoutCode finds the 8 bytes by its caller's CFI.)
}

// twinPastInvented lists the threads ("dump thread-index", every twin)
// on which Breakpad's walk of a twin finds more of the oracle's frames
// than ours only past a frame the oracle lacks, with that frame (gdb
// names the frames) and why ours stops. In each the next oracle frame is
// static glibc's (no CFI, no line records: nothing proves its return
// address without code) and its word lies above a data word the symbols
// refuse; ours takes the next proven frame past it (retaddr.CheckProof),
// or the start function's frame below the return into _start (walker/arm
// byStartFrame). The rules tried to take such words added frames the
// oracle lacks: the stale return into fprintf in abort's frame (arm-abort),
// into locked_vfxprintf and __free in arm-assert's, lie above a data
// word the same way (docs/client-dumps.md, "Not done"). The main
// threads' tails through __libc_start_call_main's stale words (arm-O0 and
// nine more) were listed until the start-function rule (scan_entry), and
// arm-threads 2 until the return into __clone counted as proven. With the
// program's ELF file at hand all 4 find the oracle's frames, and arm-libc
// with a .sym holding our dump_syms's exidx CFI too; Google's dump_syms
// writes none (TestPastInventedTwinsWithUnwindTables).
var twinPastInvented = map[string]string{
	"arm-libc 0":   "Breakpad's frame 2 is data past _fini below msort_with_tmp's return (no CFI); ours takes the next proven frame, sort_them, skipping 5 of gdb's",
	"arm-abort 0":  "Breakpad's frame 3 is data past _fini below abort's return (no CFI); ours takes the next proven frame, check_invariant, skipping abort",
	"arm-assert 0": "Breakpad's frame 3 is data past _fini below abort's return (no CFI); above it lie stale returns into locked_vfxprintf and __free",
	"arm-throw 0":  "Breakpad's frame 2 is data past _fini below raise's return (no CFI); ours takes the start function's frame below the return into _start (scan_entry), skipping gdb's frames 2-11",
}

// twinPastOracle lists the threads ("dump thread-index") whose oracle
// ends below the stack's outermost frames where gdb stopped early, with
// the frames above its last one that the walks may find (physical pcs,
// outermost last) and the independent evidence for them.
var twinPastOracle = map[string]struct {
	pcs []uint64
	why string
}{
	"arm-throw 0": {[]uint64{0x11a8c, 0x10dca, 0x10df0, 0x10e08, 0x10e2a, 0x108f2, 0x1efdc, 0x1f1b0, 0x10984}, "gdb stops at ___Unwind_RaiseException " +
		"(and libgcc's backtrace, written before the throw, sooner); objdump -d -M force-thumb of the program (testdata/cores/arm-shapesdemo.zst) " +
		"and the dump's stack words give the frames above it: __cxa_throw (push {r4, r5, r6, lr} at 0x11a60) called the wrapper at 0x11a88, " +
		"pc 0x11a8c, whose return address the wrapper's rewritten phase2_vrs no longer hold (no walk can find it); its frame [0x40800660, " +
		"0x40800670) keeps throw_deep's return 0x10dcb (bl __cxa_throw at 0x10dc6) at 0x4080066c; throw_deep (push {r4, r5, lr}; sub sp, #12) " +
		"keeps throw_mid's 0x10df1 (bl at 0x10dec) at 0x40800684, throw_mid (push {r3, lr}) throw_guard's 0x10e09 (bl at 0x10e04) at 0x4080068c, " +
		"throw_guard (push {r3, lr}) throw_main's 0x10e2b (bl at 0x10e26) at 0x40800694, throw_main (push {r4, lr}) main's 0x108f3 (bl at " +
		"0x108ee) at 0x4080069c, main (push {r3, r4, r5, lr}) __libc_start_call_main's 0x1efdd (blx r3 at 0x1efda) at 0x408006ac; " +
		"__libc_start_call_main (push {lr}; sub sp, #300) keeps __libc_start_main_impl's 0x1f1b1 (bl at 0x1f1ac) at 0x408007dc, and " +
		"__libc_start_main_impl (stmdb sp!, {r7, fp, lr}; sub sp, #12: 24 bytes) _start's 0x10985 (blx at 0x10980) at 0x408007f4: the frames " +
		"at pcs 0x11a8c, 0x10dca, 0x10df0, 0x10e08, 0x10e2a, 0x108f2, 0x1efdc, 0x1f1b0 (sp 0x408007e0) and 0x10984 (sp 0x408007f8); gdb's own " +
		"frames of the program on arm-strfn have the same outermost pcs"},
}

// pastOracle returns the oracle's frames want of the thread key extended
// by the outermost frames it lacks where its walk may find them: the
// entry function's frame above libgcc's last (oracle.Expected's
// EntryMayFollow: libgcc reports no frame without an unwind entry, as
// walker/arm TestRealDumps and processor's call-site tests allow), and
// twinPastOracle's frames.
func pastOracle(key string, exp oracle.Expected, want []uint64, walks ...twinWalk) []uint64 {
	if p, ok := twinPastOracle[key]; ok {
		return append(append([]uint64{}, want...), p.pcs...)
	}
	if !exp.EntryMayFollow || len(want) == 0 {
		return want
	}
	for _, th := range walks {
		for i := 0; i+1 < len(th.pcs); i++ {
			if th.pcs[i] == want[len(want)-1] && th.funcs[i+1] == "_start" {
				return append(append([]uint64{}, want...), th.pcs[i+1])
			}
		}
	}
	return want
}

// twinForeign lists the threads whose walk on a twin may hold a frame the
// oracle lacks, with the reason; every other thread must hold none. None
// does now. (arm64-large's did: its CFI ran at the sp a frame record gave,
// below the frame's; walker/arm64 recordSP.)
var twinForeign = map[string]string{}

// TestClientTwinsAgainstGDB walks the client-shaped twin of every
// testdata dump (coreconv.Shape: what Breakpad's and Crashpad's Linux
// clients keep, and the stacks alone as Windows' MiniDumpNormal; made here
// from the committed dump, exact for Breakpad and the stacks, a subset of
// Crashpad's memory) and compares each thread with the oracle
// (gdb's frames, and libgcc's where gdb stops: oracle.ReadExpected) and
// with Breakpad's walk of the same twin. Breakpad's walk is our Breakpad
// mode, which must print the frame lines Breakpad's minidump_stackwalk
// prints for the twin when that binary is at hand (internal/testkit/oracle).
//
// It asserts: no thread of a twin's walk holds a frame the oracle lacks
// (twinForeign aside), and on no thread does the twin's walk find fewer
// leading or in-order oracle frames than Breakpad's walk before its first
// invented frame (twinShortfalls aside; where Breakpad's walk reaches more
// past invented frames the test logs it). It logs
// the threads whose walk equals the oracle only with the code windows of
// the full dump (the tests that pass only because of them: their
// TestTestdataAgainstGDB and walker/arm TestRealDumps rows), the frames
// each walk has that the oracle lacks, and a table per thread.
func TestClientTwinsAgainstGDB(t *testing.T) {
	root := corpus.Testdata(t)
	dumps, _ := filepath.Glob(filepath.Join(root, "dumps", "*.dmp"))
	if len(dumps) < 40 {
		t.Fatalf("only %d testdata dumps", len(dumps))
	}
	syms := symfile.NewDirSupplier(filepath.Join(root, "symbols"))
	bpBin, haveBP := oracle.Lookup(oracle.Stackwalk)
	var table, onlyWithCode []string
	totals := map[string]*twinScore{}
	byRule := map[string]*[2]int{}    // "client rule" -> frames found, of which the oracle's
	pastInvented := map[string]bool{} // twinPastInvented's keys seen
	for _, path := range dumps {
		name := strings.TrimSuffix(filepath.Base(path), ".dmp")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		exp := oracle.ReadExpected(t, filepath.Join(root, "oracle"), name)
		full, _ := walkTwin(t, name, data, syms, processor.Options{})
		for like, twin := range clientTwins(t, name, data) {
			label := name + " " + like
			ours, _ := walkTwin(t, label, twin, syms, processor.Options{})
			bp, bpState := walkTwin(t, label, twin, syms, processor.Options{Mode: walker.Breakpad})
			if haveBP {
				checkBreakpadOnTwin(t, label, bpBin, twin, bpState, filepath.Join(root, "symbols"))
			}
			for i, th := range ours {
				want, ok := exp.Frames[th.id]
				if !ok {
					continue
				}
				want = pastOracle(fmt.Sprintf("%s %d", name, i), exp, want, th, full[i])
				o, b, f := scoreTwin(th.pcs, want), scoreTwin(bp[i].pcs, want), scoreTwin(full[i].pcs, want)
				countByRule(byRule, like, th, want)
				for _, k := range []string{"ours " + like, "breakpad " + like, "full"} {
					if totals[k] == nil {
						totals[k] = &twinScore{}
					}
				}
				add(totals["ours "+like], o)
				add(totals["breakpad "+like], b)
				if like == "breakpad" {
					add(totals["full"], f)
				}
				key := fmt.Sprintf("%s %d", label, i)
				table = append(table, fmt.Sprintf("%-28s thread %d: oracle %3d | twin prefix %3d in-order %3d foreign %3d total %3d | full %3d %3d %3d %3d | Breakpad on twin %3d %3d %3d %3d",
					label, i, len(want), o.prefix, o.inOrder, o.foreign, o.total, f.prefix, f.inOrder, f.foreign, f.total, b.prefix, b.inOrder, b.foreign, b.total))
				if f.prefix == len(want) && (o.prefix < len(want) || o.foreign > f.foreign) {
					onlyWithCode = append(onlyWithCode, fmt.Sprintf("%s thread %d: twin prefix %d of %d, foreign %d", label, i, o.prefix, len(want), o.foreign))
				}
				checkTwinForeign(t, key, th, want)
				if checkAgainstBreakpad(t, key, o, b, bp[i].pcs, want, twinPastInvented[fmt.Sprintf("%s %d", name, i)]) {
					pastInvented[fmt.Sprintf("%s %d", name, i)] = true
				}
			}
		}
	}
	for k := range twinPastInvented {
		if !pastInvented[k] {
			t.Errorf("%s: listed in twinPastInvented, but no twin's walk finds fewer frames than Breakpad's", k)
		}
	}
	sort.Strings(onlyWithCode)
	t.Logf("walks equal to the oracle only with core2md's code windows (%d):\n%s", len(onlyWithCode), strings.Join(onlyWithCode, "\n"))
	var sum []string
	for _, k := range []string{"full", "ours breakpad", "breakpad breakpad", "ours crashpad", "breakpad crashpad", "ours stacks", "breakpad stacks"} {
		if s := totals[k]; s != nil {
			sum = append(sum, fmt.Sprintf("%-18s prefix %4d in-order %4d foreign %4d total %4d", k, s.prefix, s.inOrder, s.foreign, s.total))
		}
	}
	t.Logf("all threads, against the oracle:\n%s", strings.Join(sum, "\n"))
	var rules []string
	for k, n := range byRule {
		rules = append(rules, fmt.Sprintf("%-32s %5d frames, %5d of them the oracle's", k, n[0], n[1]))
	}
	sort.Strings(rules)
	t.Logf("frames on the twins by the rule that found them:\n%s", strings.Join(rules, "\n"))
	t.Logf("per thread:\n%s", strings.Join(table, "\n"))
}

// checkTwinForeign requires th to hold no frame the oracle's thread lacks,
// but for the threads twinForeign lists.
func checkTwinForeign(t *testing.T, key string, th twinWalk, want []uint64) {
	t.Helper()
	in := map[uint64]bool{}
	for _, pc := range want {
		in[pc] = true
	}
	for i, pc := range th.pcs {
		if in[pc] {
			continue
		}
		if why, ok := twinForeign[key]; ok {
			t.Logf("%s: frame %d %#x (%s) not the oracle's: known: %s", key, i, pc, th.rules[i], why)
		} else {
			t.Errorf("%s: frame %d %#x (%s) not the oracle's", key, i, pc, th.rules[i])
		}
	}
}

// checkAgainstBreakpad requires our walk's score o to be no lower than
// Breakpad's walk's (b, frames bpPCs) before its first invented frame,
// but for the threads twinShortfalls lists; where Breakpad's whole walk
// scores higher only past an invented frame, the thread must be listed
// in twinPastInvented (reason: its entry) and it reports true.
func checkAgainstBreakpad(t *testing.T, key string, o, b twinScore, bpPCs, want []uint64, reason string) bool {
	t.Helper()
	if o.prefix >= b.prefix && o.inOrder >= b.inOrder {
		return false
	}
	until := oracle.UntilForeign(bpPCs, want)
	bt := scoreTwin(until, want)
	switch why, known := twinShortfalls[key]; {
	case known:
		t.Logf("%s: known shortfall: %s", key, why)
	case o.prefix >= bt.prefix && o.inOrder >= bt.inOrder && reason != "":
		t.Logf("%s: prefix %d, in order %d; Breakpad's %d, %d only past its frame %d %#x, which the oracle lacks: %s",
			key, o.prefix, o.inOrder, b.prefix, b.inOrder, len(until), bpPCs[len(until)], reason)
		return true
	case o.prefix >= bt.prefix && o.inOrder >= bt.inOrder:
		t.Errorf("%s: prefix %d, in order %d; Breakpad's %d, %d only past its frame %d %#x, which the oracle lacks: not in twinPastInvented",
			key, o.prefix, o.inOrder, b.prefix, b.inOrder, len(until), bpPCs[len(until)])
	default:
		t.Errorf("%s: twin walk prefix %d, in order %d; Breakpad's %d, %d (%d, %d before a frame the oracle lacks)",
			key, o.prefix, o.inOrder, b.prefix, b.inOrder, bt.prefix, bt.inOrder)
	}
	return false
}

// countByRule adds, per rule, the frames of th and how many of them are at
// an address of the oracle's thread.
func countByRule(byRule map[string]*[2]int, client string, th twinWalk, want []uint64) {
	in := map[uint64]bool{}
	for _, pc := range want {
		in[pc] = true
	}
	for i, r := range th.rules {
		k := client + " " + r.String()
		if byRule[k] == nil {
			byRule[k] = &[2]int{}
		}
		byRule[k][0]++
		if in[th.pcs[i]] {
			byRule[k][1]++
		}
	}
}

func add(s *twinScore, o twinScore) {
	s.prefix += o.prefix
	s.inOrder += o.inOrder
	s.foreign += o.foreign
	s.total += o.total
}

var machineFrameLine = regexp.MustCompile(`^\d+\|\d+\|`)

// checkBreakpadOnTwin runs Breakpad's minidump_stackwalk -m on the twin and
// requires our Breakpad mode's frame lines to equal its own.
func checkBreakpadOnTwin(t *testing.T, label, bin string, twin []byte, st *processor.ProcessState, symDir string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "twin.dmp")
	if err := os.WriteFile(path, twin, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-m", path, symDir).Output()
	if err != nil {
		t.Fatalf("%s: minidump_stackwalk: %v", label, err)
	}
	var ours bytes.Buffer
	if err := report.WriteMachine(&ours, st); err != nil {
		t.Fatal(err)
	}
	frames := func(b []byte) []string {
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			if machineFrameLine.MatchString(l) {
				lines = append(lines, l)
			}
		}
		return lines
	}
	got, want := frames(ours.Bytes()), frames(out)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: Breakpad mode's frames differ from minidump_stackwalk's on the twin:\n got\n%s\n want\n%s",
			label, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSignalFrameWithoutCode: on the Breakpad-shaped twin of x86-signal
// (the vDSO's __kernel_sigreturn not in the dump, no symbols for the
// vDSO) the walk finds the interrupted frame by the kernel's sigframe
// layout, gdb's frame 3, and says so in the trace; Breakpad's mode does
// not; a sigframe whose saved cs is no user code selector is refused.
func TestSignalFrameWithoutCode(t *testing.T) {
	twin, exp, physical := firstThreadTwin(t, "x86-signal", coreconv.ClientBreakpad)
	id, frames := physical(twin, processor.Options{Trace: true})
	gdb := exp.Frames[id]
	if len(gdb) < 4 || len(frames) < 4 || frames[3].Rule != walker.RuleSignal || framePC(frames[3]) != gdb[3] {
		t.Fatalf("frames %v, want gdb's %x with frame 3 by the signal frame", frames, gdb)
	}
	taken := frames[3].Steps[len(frames[3].Steps)-1]
	if !strings.Contains(taken.Note, "by its layout") || !strings.Contains(taken.Note, "vDSO") {
		t.Errorf("trace of frame 3: %q", taken.Note)
	}
	if _, bp := physical(twin, processor.Options{Mode: walker.Breakpad}); len(bp) > 3 && bp[3].Rule == walker.RuleSignal {
		t.Error("Breakpad mode found the signal frame without code")
	}
	// Overwrite the saved cs: the sigcontext starts 4 bytes above the
	// trampoline frame's esp; cs is its word 15.
	esp, _ := frames[2].Context.Get("esp")
	csAddr := esp + 4 + 4*15
	d, err := minidump.NewFile(bytes.NewReader(twin), int64(len(twin)))
	if err != nil {
		t.Fatal(err)
	}
	mem, _ := d.Memory()
	r, ok := mem.Region(csAddr)
	if !ok {
		t.Fatalf("no memory at %#x", csAddr)
	}
	bad := append([]byte(nil), twin...)
	bad[r.Off+int64(csAddr-r.Base)] = 0x10
	if _, f := physical(bad, processor.Options{}); len(f) > 3 && f[3].Rule == walker.RuleSignal {
		t.Errorf("a sigframe with cs 0x10 taken: frame 3 %+v", f[3])
	}
}

// TestTwinsWithLocalDebugInfo: where the program's ELF file is at hand
// (--use-local-debuginfo, debuginfod), its code and unwind tables count as
// the dump's for every rule: on the three client-shaped twins of every
// testdata dump whose stripped program is kept
// (testdata/cores/ARCH-PROGRAM.zst), the walk with the .sym and the program
// as native source finds at least as many of the oracle's frames, leading
// and in order, as the walk of the full dump with the .sym alone and as
// the twin's walk with the .sym alone, thread by thread, and no frame the
// oracle lacks but where exidxELFForeign says why. It logs the totals and
// the frames per rule.
func TestTwinsWithLocalDebugInfo(t *testing.T) {
	root := corpus.Testdata(t)
	syms := symfile.NewDirSupplier(filepath.Join(root, "symbols"))
	checked, tally := 0, newTwinTally()
	for k := range keptPrograms(t, root, "*.dmp", syms) {
		name, data, full := k.name, k.data, k.full
		elf := programAtHand(t, filepath.Base(k.main.CodeFile), k.program)
		exp := oracle.ReadExpected(t, filepath.Join(root, "oracle"), name)
		for like, twin := range clientTwins(t, name, data) {
			ours, _ := walkTwin(t, name, twin, syms, processor.Options{})
			withELF, _ := walkTwin(t, name, twin, syms, processor.Options{Native: elf})
			for i, th := range withELF {
				want, ok := exp.Frames[th.id]
				if !ok {
					continue
				}
				key := fmt.Sprintf("%s %d", name, i)
				want = pastOracle(key, exp, want, th, full[i])
				e, f, o := scoreTwin(th.pcs, want), scoreTwin(full[i].pcs, want), scoreTwin(ours[i].pcs, want)
				if e.prefix < max(f.prefix, o.prefix) || e.inOrder < max(f.inOrder, o.inOrder) {
					t.Errorf("%s %s thread %d: twin with the program: prefix %d, in order %d; full dump %d, %d; twin with the .sym alone %d, %d",
						name, like, i, e.prefix, e.inOrder, f.prefix, f.inOrder, o.prefix, o.inOrder)
				}
				checkKnownForeign(t, fmt.Sprintf("%s %s thread %d (+ELF)", name, like, i), th, want, exidxELFForeign[key])
				tally.add(like, th, want, map[string]twinScore{"with the program " + like: e, ".sym alone " + like: o})
			}
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("only %d dumps with their program kept", checked)
	}
	t.Logf("%d dumps' twins (%d thread-twins) walked with their program:\n%s", checked, tally.threads, tally)
}

// TestFramelessLeafWithoutCode: on the stacks-only twins of amd64-leaf and
// x86-leaf (a frameless leaf without CFI at frame 0, its caller's frame
// record in rbp/ebp, no code anywhere) the word at sp is taken as frame
// 1's return address by the symbol file and the chain alone, gdb's frame
// 1, and the trace says why; Breakpad's mode follows the record and skips
// the caller; with the record's return address moved into the word's own
// function the rule refuses, and so it does when the word's line records
// start 1 byte before it (no call instruction is that short).
func TestFramelessLeafWithoutCode(t *testing.T) {
	root := corpus.Testdata(t)
	syms := symfile.NewDirSupplier(filepath.Join(root, "symbols"))
	for _, name := range []string{"amd64-leaf", "x86-leaf"} {
		data, err := os.ReadFile(filepath.Join(root, "dumps", name+".dmp"))
		if err != nil {
			t.Fatal(err)
		}
		twin, err := coreconv.Shape(data, coreconv.ClientStacks)
		if err != nil {
			t.Fatal(err)
		}
		exp := oracle.ReadExpected(t, filepath.Join(root, "oracle"), name)
		frame1 := func(data []byte, opts processor.Options) (uint64, *processor.Frame) {
			_, st := walkTwin(t, name, data, syms, opts)
			th := st.Threads[0]
			gdb := exp.Frames[th.ID]
			var phys []*processor.Frame
			for _, f := range th.Frames {
				if f.Trust != walker.TrustInline {
					phys = append(phys, f)
				}
			}
			if len(gdb) < 2 || len(phys) < 2 {
				t.Fatalf("%s: gdb %x, walk %v", name, gdb, phys)
			}
			return gdb[1], phys[1]
		}
		want, f := frame1(twin, processor.Options{Trace: true})
		if framePC(f) != want || f.Rule != walker.RuleLeafReturn {
			t.Errorf("%s: frame 1 %#x by %v, want gdb's %#x by the leaf return", name, framePC(f), f.Rule, want)
			continue
		}
		if note := f.Steps[len(f.Steps)-1].Note; !strings.Contains(note, "no code of the function") {
			t.Errorf("%s: trace %q", name, note)
		}
		if _, bp := frame1(twin, processor.Options{Mode: walker.Breakpad}); framePC(bp) == want {
			t.Errorf("%s: Breakpad mode found frame 1 %#x", name, want)
		}
		// The record's return address (at fp + word) set to the word at
		// sp itself: both in one function, so the record would not be the
		// caller's caller's.
		ctx := f.Context
		sp, _ := ctx.SP()
		word := uint64(4)
		fpName := "ebp"
		if ctx.Arch == minidump.ArchAMD64 {
			word, fpName = 8, "rbp"
		}
		fp, _ := ctx.Get(fpName)
		leafSP := sp - word
		bad := append([]byte(nil), twin...)
		d, err := minidump.NewFile(bytes.NewReader(bad), int64(len(bad)))
		if err != nil {
			t.Fatal(err)
		}
		mem, _ := d.Memory()
		rs, ok1 := mem.Region(leafSP)
		rr, ok2 := mem.Region(fp + word)
		if !ok1 || !ok2 {
			t.Fatalf("%s: no stack at %#x or %#x", name, leafSP, fp+word)
		}
		copy(bad[rr.Off+int64(fp+word-rr.Base):], bad[rs.Off+int64(leafSP-rs.Base):][:word])
		if _, g := frame1(bad, processor.Options{}); g.Rule == walker.RuleLeafReturn {
			t.Errorf("%s: the leaf return taken with the record returning into the same function", name)
		}
		// Line records: the word's line record split so that one starts
		// 1 byte before it, leaving no room for a call: refused.
		ra := f.ReturnAddress()
		split := splitLineRecord(t, filepath.Join(root, "symbols"), f.Module, ra-f.Module.SymbolBase-1)
		_, st := walkTwin(t, name, twin, split, processor.Options{})
		if phys := physicalFrames(st.Threads[0].Frames); len(phys) > 1 && phys[1].Rule == walker.RuleLeafReturn {
			t.Errorf("%s: the leaf return taken though a line record starts at its return address - 1", name)
		}
	}
}

func physicalFrames(frames []*processor.Frame) []*processor.Frame {
	var out []*processor.Frame
	for _, f := range frames {
		if f.Trust != walker.TrustInline {
			out = append(out, f)
		}
	}
	return out
}

// splitLineRecord copies m's symbol file from dir into a new store with
// the line record covering the module-relative address at split in two,
// the second starting at it, and returns that store.
func splitLineRecord(t *testing.T, dir string, m *processor.Module, at uint64) symfile.Supplier {
	t.Helper()
	rel := filepath.Join(filepath.Base(m.DebugFile), m.DebugID, strings.TrimSuffix(filepath.Base(m.DebugFile), ".pdb")+".sym")
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	done := false
	for i, l := range lines {
		var addr, size uint64
		var line, file int
		if n, _ := fmt.Sscanf(l, "%x %x %d %d", &addr, &size, &line, &file); n != 4 || addr >= at || at >= addr+size {
			continue
		}
		lines[i] = fmt.Sprintf("%x %x %d %d\n%x %x %d %d", addr, at-addr, line, file, at, addr+size-at, line, file)
		done = true
		break
	}
	if !done {
		t.Fatalf("%s: no line record covers %#x", rel, at)
	}
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(out, rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, rel), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return symfile.NewDirSupplier(out)
}

// TestARMSignalFrameWithoutCode: on the Breakpad-shaped twins of
// arm-signal and arm-rtsignal, with glibc's restorers left out of the
// symbol file (their pc then falls inside the function before them, which
// has no CFI) and their code not in the dump, the walk finds the
// interrupted frame by the kernel's frame layout (walker/arm layoutValid),
// gdb's frame 3, and says so in the trace; Breakpad's mode does not; a
// frame whose oldmask differs from uc_sigmask's first word is refused.
func TestARMSignalFrameWithoutCode(t *testing.T) {
	root := corpus.Testdata(t)
	for _, c := range []struct{ dump, module, id string }{
		{"arm-signal", "signaldemo", "9A22307838604F98FF23A50B36E1297A0"},
		{"arm-rtsignal", "rtsignaldemo", "9EB0C0E22CDC4F906CC5E2C5112A91C40"},
	} {
		sym, err := os.ReadFile(filepath.Join(root, "symbols", c.module, c.id, c.module+".sym"))
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, l := range strings.Split(string(sym), "\n") {
			if !strings.HasSuffix(l, "_sa_restorer") {
				kept = append(kept, l)
			}
		}
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, c.module, c.id), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.module, c.id, c.module+".sym"), []byte(strings.Join(kept, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		syms := symfile.NewDirSupplier(dir)
		data, err := os.ReadFile(filepath.Join(root, "dumps", c.dump+".dmp"))
		if err != nil {
			t.Fatal(err)
		}
		twin, err := coreconv.Shape(data, coreconv.ClientBreakpad)
		if err != nil {
			t.Fatal(err)
		}
		exp := oracle.ReadExpected(t, filepath.Join(root, "oracle"), c.dump)
		physical := func(data []byte, opts processor.Options) (uint32, []*processor.Frame) {
			_, st := walkTwin(t, c.dump, data, syms, opts)
			return st.Threads[0].ID, physicalFrames(st.Threads[0].Frames)
		}
		id, frames := physical(twin, processor.Options{Trace: true})
		gdb := exp.Frames[id]
		if len(gdb) < 6 || len(frames) < 6 || frames[3].Rule != walker.RuleSignal {
			t.Fatalf("%s: frames %v, want gdb's %x with frame 3 by the signal frame", c.dump, frames, gdb)
		}
		for i := range 6 {
			if framePC(frames[i]) != gdb[i] {
				t.Errorf("%s: frame %d %#x, gdb's %#x", c.dump, i, framePC(frames[i]), gdb[i])
			}
		}
		if note := frames[3].Steps[len(frames[3].Steps)-1].Note; !strings.Contains(note, "by its layout") || !strings.Contains(note, "no CFI") {
			t.Errorf("%s: trace of frame 3: %q", c.dump, note)
		}
		if _, bp := physical(twin, processor.Options{Mode: walker.Breakpad}); len(bp) > 3 && bp[3].Rule == walker.RuleSignal {
			t.Errorf("%s: Breakpad mode found the signal frame without code", c.dump)
		}
		// oldmask: the sigcontext's third word, after uc_flags, uc_link
		// and uc_stack (20 bytes), past the siginfo of an rt_sigframe.
		sp, _ := frames[2].Context.SP()
		uc := sp
		if c.dump == "arm-rtsignal" {
			uc += 128
		}
		oldmask := uc + 20 + 8
		d, err := minidump.NewFile(bytes.NewReader(twin), int64(len(twin)))
		if err != nil {
			t.Fatal(err)
		}
		mem, _ := d.Memory()
		r, ok := mem.Region(oldmask)
		if !ok {
			t.Fatalf("%s: no memory at %#x", c.dump, oldmask)
		}
		bad := append([]byte(nil), twin...)
		bad[r.Off+int64(oldmask-r.Base)] ^= 0x40
		if _, f := physical(bad, processor.Options{}); len(f) > 3 && f[3].Rule == walker.RuleSignal {
			t.Errorf("%s: a signal frame taken with oldmask unlike uc_sigmask", c.dump)
		}
	}
}

// TestStartFrameWithoutCode: on the stacks twin of arm-O0 (static glibc,
// no CFI in __libc_start_call_main, whose frame keeps main's address and
// stale return addresses) the walk reaches gdb's __libc_start_main_impl
// and _start by walker/arm's start-function rule (scan_entry), says so in
// the trace, and not in Breakpad's mode; with the auxiliary vector's
// AT_BASE made non-zero (an interpreter ran first and may have left stale
// words in the start function's frame) only the return into _start is
// taken, skipping __libc_start_main_impl.
func TestStartFrameWithoutCode(t *testing.T) {
	twin, exp, physical := firstThreadTwin(t, "arm-O0", coreconv.ClientStacks)
	id, frames := physical(twin, processor.Options{Trace: true})
	gdb := exp.Frames[id]
	if len(gdb) != 6 || len(frames) != 6 {
		t.Fatalf("frames %v, want gdb's %x", frames, gdb)
	}
	for i, f := range frames {
		if framePC(f) != gdb[i] {
			t.Errorf("frame %d %#x, gdb's %#x", i, framePC(f), gdb[i])
		}
	}
	if frames[4].Rule != walker.RuleScanEntry || frames[5].Rule != walker.RuleScanEntry {
		t.Errorf("frames 4, 5 by %v, %v, want %v", frames[4].Rule, frames[5].Rule, walker.RuleScanEntry)
	}
	if note := frames[4].Steps[len(frames[4].Steps)-1].Note; !strings.Contains(note, "without an interpreter (AT_BASE 0)") {
		t.Errorf("trace of frame 4: %q", note)
	}
	if _, bp := physical(twin, processor.Options{Mode: walker.Breakpad}); len(bp) > 4 && bp[4].Rule == walker.RuleScanEntry {
		t.Error("Breakpad's mode used the start-function rule")
	}
	// The auxv stream (MD_LINUX_AUXV) from the stream directory: 32-bit
	// (type, value) pairs, AT_BASE's type 7.
	le := binary.LittleEndian
	at := -1
	for i, dir := 0, int(le.Uint32(twin[12:])); i < int(le.Uint32(twin[8:])); i++ {
		e := twin[dir+12*i:]
		if le.Uint32(e) != 0x47670008 {
			continue
		}
		for p := int(le.Uint32(e[8:])); p+8 <= int(le.Uint32(e[8:])+le.Uint32(e[4:])); p += 8 {
			if le.Uint32(twin[p:]) == 7 && le.Uint32(twin[p+4:]) == 0 {
				at = p + 4
			}
		}
	}
	if at < 0 {
		t.Fatal("no AT_BASE 0 in the twin's auxiliary vector")
	}
	interp := append([]byte(nil), twin...)
	le.PutUint32(interp[at:], 0x40000000)
	_, frames = physical(interp, processor.Options{})
	if len(frames) != 5 || framePC(frames[4]) != gdb[5] || frames[4].Rule != walker.RuleScanEntry {
		t.Errorf("with an interpreter: frames %v, want gdb's first 4 and _start %#x", frames, gdb[5])
	}
}

// firstThreadTwin reads testdata's dump name and shapes it as client
// keeps it; it returns the twin, the oracle's frames and a walk of a
// dump's first thread with testdata's symbols (its id, physical frames).
func firstThreadTwin(t *testing.T, name string, client coreconv.Client) ([]byte, oracle.Expected, func([]byte, processor.Options) (uint32, []*processor.Frame)) {
	t.Helper()
	root := corpus.Testdata(t)
	data, err := os.ReadFile(filepath.Join(root, "dumps", name+".dmp"))
	if err != nil {
		t.Fatal(err)
	}
	twin, err := coreconv.Shape(data, client)
	if err != nil {
		t.Fatal(err)
	}
	syms := symfile.NewDirSupplier(filepath.Join(root, "symbols"))
	physical := func(data []byte, opts processor.Options) (uint32, []*processor.Frame) {
		_, st := walkTwin(t, name, data, syms, opts)
		return st.Threads[0].ID, physicalFrames(st.Threads[0].Frames)
	}
	return twin, oracle.ReadExpected(t, filepath.Join(root, "oracle"), name), physical
}
