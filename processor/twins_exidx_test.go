package processor_test

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/dumpsyms"
	"github.com/minidump-stackwalk/minidump-stackwalk/elfsupplier"
	"github.com/minidump-stackwalk/minidump-stackwalk/elfsym"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/coreconv"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// exidxSymForeign lists the thread-twins of twinPastInvented whose walk
// with the exidx-completed .sym (TestPastInventedTwinsWithUnwindTables,
// TestARMTwinsWithExidxCFI: no other ARM thread-twin has one)
// holds frames the oracle lacks, and why. The exidx CFI takes each walk
// exactly to abort, whose code glibc built without an unwind entry (the
// linker's EXIDX_CANTUNWIND: no record, and only abort's code says where
// it saved lr); abort's frame (a sigaction and a sigset) holds stale
// return addresses of the calls its caller made before, and the scan from
// abort's sp meets one of them first. arm-abort's (fprintf's, whose CFI
// read check_invariant's earlier return 0x10606 below the live 0x1060a)
// is refused since retaddr's staleUnderCaller; arm-throw's stale chain
// reads the live return into its caller as its own, so nothing in the
// stack tells it apart.
var exidxSymForeign = map[string]string{
	"arm-throw 0": "frame 4: the scan from abort's sp takes a stale return into _IO_file_write (0x26fa2), whose CFI walks an earlier write's chain " +
		"(__write, _IO_file_write, new_do_write, _IO_new_do_write, _IO_file_overflow) back onto gdb's frames 4-11, its last frame reading abort's own " +
		"pushed return (0x11d0a) as its return address (6 frames); past ___Unwind_RaiseException (EXIDX_CANTUNWIND) the scan takes throw_deep's " +
		"return and CFI reaches _start, twinPastOracle's frames",
}

// exidxELFForeign lists the thread-twins whose walk with the program's
// ELF file at hand holds frames the oracle lacks, and why. None does:
// arm-throw's frames past gdb's end are the program's (twinPastOracle),
// and the CFI step to 0x9cac0, a heap word, is refused
// (walker.Env.Executable).
var exidxELFForeign = map[string]string{}

// exidxELFMissing lists the thread-twins whose walk with the program's
// ELF file finds every one of gdb's frames but not every frame the
// oracle has past gdb's end (twinPastOracle): how many it misses, and why.
var exidxELFMissing = map[string]struct {
	n   int
	why string
}{
	"arm-throw 0": {3, "__cxa_throw's return address is in no stack word (the wrapper's pushes are the phase2_vrs that unwind_phase2 " +
		"rewrote: docs/testdata.md, 'shapesdemo on arm'); the wrapper's prologue (module_prologue), as gdb's own frame 12, reads " +
		"throw_guard's pc 0x10e08 from that area with the wrapper's caller's sp, so throw_deep and throw_mid, whose returns lie " +
		"between, are skipped"},
}

// TestPastInventedTwinsWithUnwindTables walks the thread-twins that
// twinPastInvented lists (on each twin kind) with two other symbol sources
// than testdata's .sym, written by Google's dump_syms (which reads no
// .ARM.exidx: its src/common/linux/dump_symbols.cc reads STACK CFI from
// .debug_frame and .eh_frame only), and compares them with the oracle:
//
//   - that .sym completed with the STACK CFI records our dump_syms writes
//     from the program's .ARM.exidx for code no DWARF CFI covers (what
//     `minidump-stackwalk dump-syms` writes for the unstripped program; the
//     stripped file testdata keeps has the same exidx tables): the walk
//     must find the oracle's frames up to the first one in code without an
//     unwind entry (abort's EXIDX_CANTUNWIND; all of arm-libc's), and holds
//     frames the oracle lacks only where exidxSymForeign says why;
//   - the .sym and the program's ELF file (--use-local-debuginfo,
//     debuginfod: its exidx tables, its code for the prologue of abort):
//     every oracle frame in order (but those exidxELFMissing counts),
//     gdb's frames leading, and no frame the oracle lacks but where
//     exidxELFForeign says why.
func TestPastInventedTwinsWithUnwindTables(t *testing.T) {
	root := corpus.Testdata(t)
	syms := symfile.NewDirSupplier(filepath.Join(root, "symbols"))
	keys := make([]string, 0, len(twinPastInvented))
	for k := range twinPastInvented {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	seenSym, seenELF := map[string]bool{}, map[string]bool{}
	var table []string
	for _, key := range keys {
		name, idx, _ := strings.Cut(key, " ")
		i, err := strconv.Atoi(idx)
		if err != nil {
			t.Fatalf("twinPastInvented key %q", key)
		}
		data, err := os.ReadFile(filepath.Join(root, "dumps", name+".dmp"))
		if err != nil {
			t.Fatal(err)
		}
		_, st := walkTwin(t, name, data, syms, processor.Options{})
		m := st.Modules[st.MainModule]
		program := filepath.Base(m.CodeFile)
		binary := corpus.ReadZstd(t, filepath.Join(root, "cores", "arm-"+program+".zst"))
		exidxSyms, covered := exidxCompletedSyms(t, filepath.Join(root, "symbols"), m, binary)
		native := programAtHand(t, program, binary)
		exp := oracle.ReadExpected(t, filepath.Join(root, "oracle"), name)
		for like, twin := range clientTwins(t, name, data) {
			label := fmt.Sprintf("%s %s thread %d", name, like, i)
			base, _ := walkTwin(t, label, twin, syms, processor.Options{})
			withSym, _ := walkTwin(t, label, twin, exidxSyms, processor.Options{})
			withELF, _ := walkTwin(t, label, twin, syms, processor.Options{Native: native})
			gdb := exp.Frames[base[i].id]
			want := pastOracle(key, exp, gdb, withELF[i])
			b, s, e := scoreTwin(base[i].pcs, want), scoreTwin(withSym[i].pcs, want), scoreTwin(withELF[i].pcs, want)
			table = append(table, fmt.Sprintf("%-26s oracle %2d | .sym prefix %2d in-order %2d foreign %2d | +exidx CFI %2d %2d %2d (%s) | +ELF %2d %2d %2d (%s)",
				label, len(want), b.prefix, b.inOrder, b.foreign, s.prefix, s.inOrder, s.foreign, ruleCounts(withSym[i]), e.prefix, e.inOrder, e.foreign, ruleCounts(withELF[i])))
			if reach := untilUncovered(gdb, m.SymbolBase, covered); s.prefix < reach || s.inOrder < b.inOrder {
				t.Errorf("%s: with exidx CFI prefix %d, in order %d; want >= %d (gdb's frames to the first without an unwind entry) and >= %d", label, s.prefix, s.inOrder, reach, b.inOrder)
			}
			seenSym[key] = checkKnownForeign(t, label+" (+exidx CFI)", withSym[i], want, exidxSymForeign[key]) || seenSym[key]
			miss := exidxELFMissing[key]
			if e.prefix < len(gdb) || e.inOrder < len(want)-miss.n {
				t.Errorf("%s: with the ELF file prefix %d, in order %d; want %d, %d (every oracle frame but %d: %s)", label, e.prefix, e.inOrder, len(gdb), len(want)-miss.n, miss.n, miss.why)
			}
			if miss.n > 0 && e.inOrder >= len(want) {
				t.Errorf("%s: listed in exidxELFMissing, but the walk with the ELF file finds every oracle frame", label)
			}
			seenELF[key] = checkKnownForeign(t, label+" (+ELF)", withELF[i], want, exidxELFForeign[key]) || seenELF[key]
		}
	}
	for k := range exidxSymForeign {
		if !seenSym[k] {
			t.Errorf("%s: listed in exidxSymForeign, but no twin's walk with exidx CFI holds a frame the oracle lacks", k)
		}
	}
	for k := range exidxELFForeign {
		if !seenELF[k] {
			t.Errorf("%s: listed in exidxELFForeign, but no twin's walk with the ELF file holds a frame the oracle lacks", k)
		}
	}
	t.Logf("twinPastInvented's thread-twins, physical frames against the oracle:\n%s", strings.Join(table, "\n"))
}

// checkKnownForeign reports whether th holds a frame the oracle (want)
// lacks; such a frame is an error unless why says why.
func checkKnownForeign(t *testing.T, label string, th twinWalk, want []uint64, why string) bool {
	t.Helper()
	in := map[uint64]bool{}
	for _, pc := range want {
		in[pc] = true
	}
	var lacked []string
	for j, pc := range th.pcs {
		if !in[pc] {
			lacked = append(lacked, fmt.Sprintf("frame %d %#x %s (%s)", j, pc, th.funcs[j], th.rules[j]))
		}
	}
	switch {
	case len(lacked) > 0 && why == "":
		t.Errorf("%s: not the oracle's: %s", label, strings.Join(lacked, "; "))
	case len(lacked) > 0:
		t.Logf("%s: not the oracle's, known (%s): %s", label, why, strings.Join(lacked, "; "))
	}
	return len(lacked) > 0
}

func ruleCounts(th twinWalk) string {
	n := map[string]int{}
	for _, r := range th.rules {
		n[r.String()]++
	}
	var out []string
	for r, c := range n {
		out = append(out, fmt.Sprintf("%s %d", r, c))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// exidxCompletedSyms copies m's .sym from dir into a new store with the
// STACK CFI records our dump_syms writes from binary's .ARM.exidx appended
// where no STACK CFI INIT of the .sym covers the function's start (as
// dumpsyms does for the DWARF CFI of the same file), and says whether the
// completed file's CFI covers a module-relative address.
func exidxCompletedSyms(t *testing.T, dir string, m *processor.Module, binary []byte) (symfile.Supplier, func(uint64) bool) {
	t.Helper()
	rel := filepath.Join(filepath.Base(m.DebugFile), m.DebugID, filepath.Base(m.DebugFile)+".sym")
	sym, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(binary))
	if err != nil {
		t.Fatal(err)
	}
	var ours bytes.Buffer
	if err := dumpsyms.WriteWithDebug(&ours, f, nil, m.CodeFile, dumpsyms.Options{}); err != nil {
		t.Fatal(err)
	}
	var ranges [][2]uint64
	covers := func(a uint64) bool {
		for _, r := range ranges {
			if r[0] <= a && a < r[1] {
				return true
			}
		}
		return false
	}
	readInit := func(line string) (uint64, uint64, bool) {
		var addr, size uint64
		n, _ := fmt.Sscanf(line, "STACK CFI INIT %x %x", &addr, &size)
		return addr, addr + size, n == 2
	}
	for _, line := range strings.Split(string(sym), "\n") {
		if a, e, ok := readInit(line); ok {
			ranges = append(ranges, [2]uint64{a, e})
		}
	}
	out := append(bytes.TrimRight(sym, "\n"), '\n')
	var added [][2]uint64
	keep := false
	for _, line := range strings.Split(ours.String(), "\n") {
		if a, e, ok := readInit(line); ok {
			if keep = !covers(a); keep {
				added = append(added, [2]uint64{a, e})
			}
		}
		if keep && strings.HasPrefix(line, "STACK CFI ") {
			out = append(append(out, line...), '\n')
		}
	}
	if len(added) == 0 {
		t.Fatalf("%s: our dump_syms wrote no exidx CFI for %s", rel, m.CodeFile)
	}
	ranges = append(ranges, added...)
	store := t.TempDir()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(store, rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(store, rel), out, 0o644); err != nil {
		t.Fatal(err)
	}
	return symfile.NewDirSupplier(store), covers
}

// untilUncovered counts gdb's frames up to and including the first whose
// code no CFI covers (a caller's looked up at its return address - 2, the
// call's last halfword): how far CFI alone can take a walk.
func untilUncovered(gdb []uint64, base uint64, covered func(uint64) bool) int {
	for i, pc := range gdb {
		if i > 0 {
			pc -= 2
		}
		if pc < base || !covered(pc-base) {
			return i + 1
		}
	}
	return len(gdb)
}

// programAtHand serves binary, the module's file named program, as
// --use-local-debuginfo finds it (processor.Options.Native).
func programAtHand(t *testing.T, program string, binary []byte) *elfsupplier.Supplier {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, program), binary, 0o644); err != nil {
		t.Fatal(err)
	}
	return elfsupplier.New(context.Background(), &elfsym.Locator{Roots: []string{dir}})
}

// clientTwins yields the Breakpad, Crashpad and stacks twins of the dump
// name (data), in that order, by the client's name.
func clientTwins(t *testing.T, name string, data []byte) func(func(string, []byte) bool) {
	return func(yield func(string, []byte) bool) {
		for _, like := range []string{"breakpad", "crashpad", "stacks"} {
			client, err := coreconv.ParseClient(like)
			if err != nil {
				t.Fatal(err)
			}
			twin, err := coreconv.Shape(data, client)
			if err != nil {
				t.Fatalf("%s: %s twin: %v", name, like, err)
			}
			if !yield(like, twin) {
				return
			}
		}
	}
}

// TestARMTwinsWithExidxCFI walks the three twins of every testdata ARM
// dump whose program is kept with testdata's .sym and with that .sym
// completed by our dump_syms's .ARM.exidx CFI (exidxCompletedSyms), and
// requires each thread with exidx CFI to find at least the oracle frames
// (leading and in order) the .sym alone finds, and no frame the oracle
// lacks but where exidxSymForeign says why. (arm-threads' thread 1 and
// arm-overflow's needed the frame record's symbol check: CFI restored r11,
// which glibc's Thumb code uses as no frame pointer, at a pointer to a
// function's first byte.) It logs the totals and the frames per rule.
func TestARMTwinsWithExidxCFI(t *testing.T) {
	root := corpus.Testdata(t)
	syms := symfile.NewDirSupplier(filepath.Join(root, "symbols"))
	tally := newTwinTally()
	for k := range keptPrograms(t, root, "arm-*.dmp", syms) {
		name, data, full := k.name, k.data, k.full
		exidxSyms, _ := exidxCompletedSyms(t, filepath.Join(root, "symbols"), k.main, k.program)
		exp := oracle.ReadExpected(t, filepath.Join(root, "oracle"), name)
		for like, twin := range clientTwins(t, name, data) {
			ours, _ := walkTwin(t, name, twin, syms, processor.Options{})
			withSym, _ := walkTwin(t, name, twin, exidxSyms, processor.Options{})
			for i, th := range withSym {
				want, ok := exp.Frames[th.id]
				if !ok {
					continue
				}
				key := fmt.Sprintf("%s %d", name, i)
				want = pastOracle(key, exp, want, th, full[i])
				s, o := scoreTwin(th.pcs, want), scoreTwin(ours[i].pcs, want)
				label := fmt.Sprintf("%s %s thread %d", name, like, i)
				if s.prefix < o.prefix || s.inOrder < o.inOrder {
					t.Errorf("%s: with exidx CFI prefix %d, in order %d; with the .sym alone %d, %d", label, s.prefix, s.inOrder, o.prefix, o.inOrder)
				}
				checkKnownForeign(t, label+" (+exidx CFI)", th, want, exidxSymForeign[key])
				tally.add(like, th, want, map[string]twinScore{"exidx CFI " + like: s, ".sym alone " + like: o})
			}
		}
	}
	if tally.threads < 30 {
		t.Fatalf("only %d ARM thread-twins", tally.threads)
	}
	t.Logf("%d ARM thread-twins:\n%s", tally.threads, tally)
}

// twinTally sums walks' scores by label and their frames by rule.
type twinTally struct {
	totals  map[string]*twinScore
	byRule  map[string]*[2]int
	threads int
}

func newTwinTally() *twinTally {
	return &twinTally{totals: map[string]*twinScore{}, byRule: map[string]*[2]int{}}
}

// add counts one thread-twin: the scores by label, th's frames by rule.
func (y *twinTally) add(client string, th twinWalk, want []uint64, scores map[string]twinScore) {
	for k, v := range scores {
		if y.totals[k] == nil {
			y.totals[k] = &twinScore{}
		}
		add(y.totals[k], v)
	}
	countByRule(y.byRule, client, th, want)
	y.threads++
}

func (y *twinTally) String() string {
	var sum []string
	for k, s := range y.totals {
		sum = append(sum, fmt.Sprintf("%-28s prefix %4d in-order %4d foreign %2d total %4d", k, s.prefix, s.inOrder, s.foreign, s.total))
	}
	for k, n := range y.byRule {
		sum = append(sum, fmt.Sprintf("%-28s %5d frames, %5d of them the oracle's", k, n[0], n[1]))
	}
	sort.Strings(sum)
	return strings.Join(sum, "\n")
}

// keptDump is a testdata dump whose stripped program testdata/cores keeps.
type keptDump struct {
	name    string
	data    []byte
	full    []twinWalk        // the dump's walk with testdata's symbols
	main    *processor.Module // its main module
	program []byte            // the module's stripped ELF file
}

// keptPrograms yields the testdata dumps matching glob whose program
// (testdata/cores/ARCH-PROGRAM.zst) is kept, walked with syms.
func keptPrograms(t *testing.T, root, glob string, syms symfile.Supplier) func(func(keptDump) bool) {
	return func(yield func(keptDump) bool) {
		dumps, _ := filepath.Glob(filepath.Join(root, "dumps", glob))
		for _, path := range dumps {
			name := strings.TrimSuffix(filepath.Base(path), ".dmp")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			full, st := walkTwin(t, name, data, syms, processor.Options{})
			if st.MainModule < 0 {
				continue
			}
			m := st.Modules[st.MainModule]
			arch, _, _ := strings.Cut(name, "-")
			zst := filepath.Join(root, "cores", arch+"-"+filepath.Base(m.CodeFile)+".zst")
			if _, err := os.Stat(zst); err != nil {
				continue
			}
			if !yield(keptDump{name, data, full, m, corpus.ReadZstd(t, zst)}) {
				return
			}
		}
	}
}
