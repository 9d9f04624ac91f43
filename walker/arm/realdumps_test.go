package arm_test

// Real arm and arm64 crashes (testdata/, see docs/testdata.md): our walks
// against gdb's backtrace of the same core and Breakpad's output for the
// dump. Both architectures are here so one test prints the whole table.

import (
	"fmt"
	"os"
	"path/filepath"
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

var realDumps = []string{
	"arm-O0", "arm-abort", "arm-apcs", "arm-armmode", "arm-cpp", "arm-fp", "arm-libc", "arm-nofp", "arm-recursion",
	"arm-large", "arm-rtsignal", "arm-signal", "arm-threads", "arm-noreturn", "arm-strfn", "arm-throw", "arm-overflow",
	"arm64-O0", "arm64-abort", "arm64-cpp", "arm64-fp", "arm64-large", "arm64-libc", "arm64-nofp", "arm64-recursion",
	"arm64-signal", "arm64-threads", "arm64-noreturn", "arm64-strfn", "arm64-throw", "arm64-overflow",
}

// TestRealDumps walks every arm and arm64 dump of testdata twice:
//
//   - with Options.Mode walker.Breakpad, which must reproduce Breakpad's -m frames
//     (module, function and offset of every frame of every thread);
//   - in the default (extended) mode, which must equal gdb's backtrace of
//     the same core: the same physical frames in the same order, nothing
//     extra. It is then at least as right as Breakpad's walk (the test
//     checks that too: leading frames equal to gdb's and gdb's frames found
//     in order, never fewer than Breakpad's).
//
// The dumps hold code around every stack word that points into a module's
// text (core2md's code windows): the extended scan skips candidates no call
// instruction precedes and prefers a direct call to the callee's function
// (walker/internal/retaddr). Without that the scan out of static glibc's
// __libc_start_call_main (no STACK CFI; its 300-byte frame holds stale
// return addresses of earlier calls) cannot prove a caller and stops
// (retaddr.CheckProof); it once added ~9 frames before
// __libc_start_main_impl. Without code the walk must still find at least
// Breakpad's frames before Breakpad's first frame gdb lacks.
//
// The signal cases (a fault in a signal handler, under qemu-user) have a
// second oracle, libgcc's backtrace taken by the program itself just
// before the fault (oracle/<name>.unwind.txt; see oracle.ReadExpected):
// gdb stops at qemu's signal frames there.
//
// It logs, per thread: gdb's frame count, and for us and Breakpad the
// leading frames equal to gdb's, gdb's frames found in order, and the total.
func TestRealDumps(t *testing.T) {
	root := corpus.Testdata(t)
	if _, err := os.Stat(filepath.Join(root, "dumps", "arm-fp.dmp")); err != nil {
		t.Skipf("real-crash corpus not present: %v", err)
	}
	syms := symcompress.NewDirSupplier(filepath.Join(root, "symbols"))
	var table []string
	for _, name := range realDumps {
		t.Run(name, func(t *testing.T) {
			exp := oracle.ReadExpected(t, filepath.Join(root, "oracle"), name)
			gdb := exp.Frames
			bpWant := readMachine(t, filepath.Join(root, "oracle", name+".breakpad.machine.txt"))
			ext := walk(t, filepath.Join(root, "dumps", name+".dmp"), syms, processor.Options{})
			bp := walk(t, filepath.Join(root, "dumps", name+".dmp"), syms,
				processor.Options{Mode: walker.Breakpad})
			// The same walk without the code windows, as for a dump whose
			// writer kept no code (Breakpad's client keeps only 256 bytes
			// around the crash address): it need not equal gdb's, but must
			// still be at least as right as Breakpad's; the table shows what
			// the call-site check adds.
			noCode := walk(t, filepath.Join(root, "dumps", name+".dmp"), syms, processor.Options{NoCode: true})

			for i, th := range bp {
				if i >= len(bpWant) {
					t.Errorf("Breakpad mode: thread %d not in Breakpad's output", i)
					continue
				}
				if got, want := strings.Join(th.machine, "\n"), strings.Join(bpWant[i], "\n"); got != want {
					t.Errorf("Breakpad mode, thread %d differs from Breakpad:\n got\n%s\n want\n%s", i, got, want)
				}
			}
			if len(ext) != len(gdb) {
				t.Errorf("%d threads walked, gdb has %d", len(ext), len(gdb))
			}
			for i, th := range ext {
				g, ok := gdb[th.id]
				if !ok {
					t.Errorf("thread %d (id %d) not in gdb's backtrace", i, th.id)
					continue
				}
				e, b, n := score(th.pcs, g), score(bp[i].pcs, g), score(noCode[i].pcs, g)
				table = append(table, fmt.Sprintf("%-16s thread %d: gdb %3d | ours prefix %3d in-order %3d total %3d | without code %3d %3d %3d | Breakpad prefix %3d in-order %3d total %3d",
					name, i, len(g), e.prefix, e.inOrder, len(th.pcs), n.prefix, n.inOrder, len(noCode[i].pcs), b.prefix, b.inOrder, len(bp[i].pcs)))
				if exp.EntryMayFollow && len(th.pcs) == len(g)+1 && th.funcs[len(g)] == "_start" {
					th.pcs = th.pcs[:len(g)] // the entry, past what libgcc reports
				}
				if from, known := knownWrong[name]; known {
					switch {
					case e.prefix == len(g) && len(th.pcs) == len(g):
						t.Errorf("thread %d: equals the oracle now; drop it from knownWrong", i)
					case e.prefix < from:
						t.Errorf("thread %d: walk %x differs from %x before frame %d", i, th.pcs, g, from)
					default:
						t.Logf("thread %d: known difference from frame %d on: walk %x, oracle %x", i, from, th.pcs, g)
					}
				} else if e.prefix != len(g) || len(th.pcs) != len(g) {
					t.Errorf("thread %d: walk %x, gdb %x", i, th.pcs, g)
				}
				if n.prefix < b.prefix || n.inOrder < b.inOrder {
					// Without code the walk stops where it cannot prove the
					// next frame; Breakpad's scan may reach gdb's frames
					// above by taking stale words on the way: only its
					// frames before the first gdb lacks count.
					bt := score(oracle.UntilForeign(bp[i].pcs, g), g)
					if n.prefix < bt.prefix || n.inOrder < bt.inOrder {
						t.Errorf("thread %d without code: prefix %d, in order %d; Breakpad %d, %d before a frame gdb lacks", i, n.prefix, n.inOrder, bt.prefix, bt.inOrder)
					} else {
						t.Logf("thread %d without code: prefix %d, in order %d; Breakpad %d, %d only past frames gdb lacks", i, n.prefix, n.inOrder, b.prefix, b.inOrder)
					}
				}
				if e.prefix < b.prefix || e.inOrder < b.inOrder {
					t.Errorf("thread %d: prefix %d, in order %d; Breakpad %d, %d", i, e.prefix, e.inOrder, b.prefix, b.inOrder)
				}
			}
		})
	}
	t.Log("frames per thread, ours (extended; and without the code windows: prefix, in-order, total) and Breakpad's, against gdb:\n" + strings.Join(table, "\n"))
}

// knownWrong lists the dumps whose walk (extended, with the code windows)
// is known to differ from the oracle, by the first frame that differs; the
// frames before it must still equal it.
var knownWrong = map[string]int{
	// SIGABRT from std::terminate called by the C++ personality routine
	// inside libgcc's _Unwind_RaiseException (an exception escaping a
	// noexcept function). The .sym has no CFI for libgcc and libstdc++
	// (dump_syms reads no .ARM.exidx), and the personality routine's frame
	// holds the pc of the frame it examines (throw_guard, after a direct
	// call of throw_mid): the scan takes it (its call site contradicts, but
	// a tail call could explain that) over unwind_phase2's return address
	// further up, after an indirect call (blx r3); the walk then ends in
	// throw_guard. The oracle itself ends at frame 11 (gdb's frames: past
	// libgcc's assembly wrapper the slots it pushed hold the registers
	// unwind_phase2 unwound in place, throw_guard's, not its caller's; and
	// libgcc's own backtrace stops at __cxxabiv1::__terminate; see
	// docs/testdata.md).
	"arm-throw": 9,
}

type walkedThread struct {
	id      uint32
	pcs     []uint64 // physical frames' PCs (Thumb bit cleared), gdb's convention
	funcs   []string // their functions
	machine []string // module|function|offset as Breakpad's -m prints them
}

func walk(t *testing.T, path string, syms symfile.Supplier, opts processor.Options) []walkedThread {
	t.Helper()
	d, err := minidump.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := processor.Process(d, syms, opts)
	if err != nil {
		t.Fatal(err)
	}
	threads, _ := st.BreakpadThreads()
	var out []walkedThread
	for _, th := range threads {
		wt := walkedThread{id: th.ID}
		for _, f := range th.Frames {
			if f.Trust == walker.TrustInline {
				continue
			}
			pc, _ := f.Context.IP()
			if f.Context.Arch == minidump.ArchARM {
				pc &^= 1
			}
			wt.pcs = append(wt.pcs, pc)
			wt.funcs = append(wt.funcs, f.Function)
			wt.machine = append(wt.machine, machineFrame(f))
		}
		out = append(out, wt)
	}
	return out
}

// machineFrame prints module|function|offset as minidump_stackwalk -m does.
func machineFrame(f *processor.Frame) string {
	mod := ""
	if f.Module != nil {
		mod = filepath.Base(f.Module.CodeFile)
	}
	var off uint64
	switch {
	case f.Function != "" && f.SourceFile != "":
		off = f.LineOffset()
	case f.Function != "":
		off = f.FunctionOffset()
	case f.Module != nil:
		off = f.ModuleOffset()
	default:
		off = f.ReturnAddress()
	}
	return fmt.Sprintf("%s|%s|%#x", mod, f.Function, off)
}

type scoreT struct{ prefix, inOrder int }

func score(ours, gdb []uint64) scoreT {
	var s scoreT
	for s.prefix < len(ours) && s.prefix < len(gdb) && ours[s.prefix] == gdb[s.prefix] {
		s.prefix++
	}
	j := 0
	for _, pc := range ours {
		if j < len(gdb) && pc == gdb[j] {
			j++
		}
	}
	s.inOrder = j
	return s
}

// readMachine returns module|function|offset per frame per thread of -m output.
func readMachine(t *testing.T, path string) [][]string {
	t.Helper()
	var out [][]string
	for _, f := range oracle.ReadMachineFrames(t, path) {
		for len(out) <= f.Thread {
			out = append(out, nil)
		}
		out[f.Thread] = append(out[f.Thread], fmt.Sprintf("%s|%s|%#x", f.Module, f.Function, f.Offset))
	}
	return out
}
