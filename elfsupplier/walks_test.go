package elfsupplier

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/elfsym"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// walkCase is a testdata dump whose program is kept in testdata/cores.
type walkCase struct {
	name, arch, program string
	binary              []byte
}

// casesWithBinaries lists testdata/cases.txt's dumps whose stripped
// program (testdata/cores/ARCH-PROGRAM.zst, PROGRAM the dump's first
// module) is kept.
func casesWithBinaries(t *testing.T, root string) []walkCase {
	f, err := os.Open(filepath.Join(root, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []walkCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		c := walkCase{name: fields[0], arch: fields[1], program: mainModule(t, filepath.Join(root, "dumps", fields[0]+".dmp"))}
		zst := filepath.Join(root, "cores", c.arch+"-"+c.program+".zst")
		if _, err := os.Stat(zst); err != nil {
			continue
		}
		c.binary = corpus.ReadZstd(t, zst)
		out = append(out, c)
	}
	return out
}

// mainModule returns the file name of a dump's first module, the program.
func mainModule(t *testing.T, path string) string {
	d, err := minidump.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	mods, err := d.Modules()
	if err != nil || len(mods) == 0 {
		t.Fatalf("%s: no modules: %v", path, err)
	}
	return filepath.Base(mods[0].Name)
}

// physicalPCs returns each thread's physical frame PCs (ARM's Thumb bit
// cleared), by thread id.
func physicalPCs(st *processor.ProcessState) map[uint32][]uint64 {
	out := map[uint32][]uint64{}
	for _, th := range st.Threads {
		var pcs []uint64
		for _, f := range th.Frames {
			if f.Trust == walker.TrustInline {
				continue
			}
			pc, _ := f.Context.IP()
			if f.Context.Arch == minidump.ArchARM {
				pc &^= 1
			}
			pcs = append(pcs, pc)
		}
		out[th.ID] = pcs
	}
	return out
}

// leadingEqual counts the leading equal entries of a and b.
func leadingEqual(a, b []uint64) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func walkWith(t *testing.T, path string, sup symfile.Supplier, opts processor.Options) map[uint32][]uint64 {
	d, err := minidump.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := processor.Process(d, sup, opts)
	if err != nil {
		t.Fatal(err)
	}
	return physicalPCs(st)
}

// elfOnlyShortfalls lists the dumps whose walk with the stripped program
// alone (no .sym, no symbols) differs from gdb's, and why.
var elfOnlyShortfalls = map[string]string{
	// large.c is built without unwind tables, and nothing calls main
	// directly (_start passes __wrap_main, which branches to it): the
	// function start nearest main's call is _dl_start's FDE, 24 bytes
	// before it, whose prologue (stp x29, x30; mov x29, sp) says the
	// caller is at x29, where main's `str x30, [sp, #-16]!` left the
	// record of __libc_start_call_main. With the .sym's FUNC main the
	// walk equals gdb's.
	"arm64-large": "main's start unknown: read as _dl_start's prologue",
}

// pastOracle lists the dumps whose oracle stops short of the stack's end,
// and why: only its frames are compared.
var pastOracle = map[string]string{
	// gdb goes wrong past libgcc's assembly wrapper _Unwind_RaiseException
	// (no unwind entry of its own; its prologue's lr slot holds the pc of
	// throw_guard, written there by unwind_phase2, which unwinds the
	// wrapper's pushes in place: docs/testdata.md), so gen.sh lists its
	// frames up to the wrapper; libgcc's backtrace stops at
	// __cxxabiv1::__terminate. The walks with the program read the same
	// prologue and slot and go the same way.
	"arm-throw": "gdb's frames end at libgcc's _Unwind_RaiseException wrapper",
}

// TestWalksWithLocalDebugInfoEqualGDB walks every testdata dump whose
// program is kept, on all four architectures, three ways: Breakpad's .sym
// alone; the .sym and the stripped program (--use-local-debuginfo: the
// program's .ARM.exidx, .eh_frame, prologues and code where the .sym has
// no CFI); the stripped program alone. With the program, every thread's
// walk must equal gdb's physical frames from the top (gdb read the
// unstripped program). With the .sym alone the walks must be what they
// are without the ELF supplier's evidence (a supplier that finds no file
// changes nothing).
func TestWalksWithLocalDebugInfoEqualGDB(t *testing.T) {
	root := corpus.Testdata(t)
	cases := casesWithBinaries(t, root)
	archs := map[string]bool{}
	for _, c := range cases {
		archs[c.arch] = true
	}
	if len(archs) < 4 {
		t.Fatalf("programs kept for %v, want all four architectures", archs)
	}
	syms := symcompress.NewDirSupplier(filepath.Join(root, "symbols"))
	var table strings.Builder
	fmt.Fprintf(&table, "%-16s %-8s %5s %9s %9s %9s %9s\n", "dump", "thread", "gdb", "sym+elf", "elf", "sym", "elf .sym")
	for _, c := range cases {
		path := filepath.Join(root, "dumps", c.name+".dmp")
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, c.program), c.binary, 0o644); err != nil {
			t.Fatal(err)
		}
		elfSup := New(context.Background(), &elfsym.Locator{Roots: []string{dir}})
		none := New(context.Background(), &elfsym.Locator{Roots: []string{t.TempDir()}})

		symOnly := walkWith(t, path, syms, processor.Options{})
		inert := walkWith(t, path, syms, processor.Options{Native: none})
		// Breakpad's mode reads nothing of the file but its .sym.
		bpSym := walkWith(t, path, syms, processor.Options{Mode: walker.Breakpad})
		bpNative := walkWith(t, path, syms, processor.Options{Mode: walker.Breakpad, Native: elfSup})
		both := walkWith(t, path, symfile.ChainSupplier{syms, elfSup}, processor.Options{Native: elfSup})
		elfOnly := walkWith(t, path, elfSup, processor.Options{Native: elfSup})
		// The program's .sym without its evidence, as before Options.Native.
		elfSymOnly := walkWith(t, path, elfSup, processor.Options{})
		// gdb's frames, joined with libgcc's backtrace where gdb cannot read
		// qemu-user's signal frames (oracle.ReadExpected).
		exp := oracle.ReadExpected(t, filepath.Join(root, "oracle"), c.name)
		for _, g := range oracle.ReadGDBFrames(t, filepath.Join(root, "oracle", c.name+".frames.txt")) {
			id := uint32(g.LWP)
			want := exp.Frames[id]
			// libgcc reports no frame for _start (EXIDX_CANTUNWIND): one more
			// outermost frame is allowed after its last one.
			entry := func(got []uint64) []uint64 {
				if exp.EntryMayFollow && len(got) == len(want)+1 {
					return got[:len(want)]
				}
				return got
			}
			both[id], elfOnly[id], symOnly[id], elfSymOnly[id], inert[id] = entry(both[id]), entry(elfOnly[id]), entry(symOnly[id]), entry(elfSymOnly[id]), entry(inert[id])
			if fmt.Sprint(inert[id]) != fmt.Sprint(symOnly[id]) {
				t.Errorf("%s thread %d: .sym alone walks %x, with a supplier that finds no file %x", c.name, id, symOnly[id], inert[id])
			}
			if fmt.Sprint(bpNative[id]) != fmt.Sprint(bpSym[id]) {
				t.Errorf("%s thread %d: Breakpad's mode walks %x, with the program %x", c.name, id, bpSym[id], bpNative[id])
			}
			row := func(got []uint64) string {
				n := leadingEqual(got, want)
				mark := ""
				if n != len(want) || len(got) != len(want) {
					mark = "*"
				}
				return fmt.Sprintf("%d/%d%s", n, len(got), mark)
			}
			fmt.Fprintf(&table, "%-16s %-8d %5d %9s %9s %9s %9s\n", c.name, id, len(want), row(both[id]), row(elfOnly[id]), row(symOnly[id]), row(elfSymOnly[id]))
			if past, ok := pastOracle[c.name]; ok {
				// Only the frames the oracle has are compared.
				for _, walks := range []map[uint32][]uint64{both, elfOnly} {
					if got := walks[id]; len(got) > len(want) && leadingEqual(got, want) == len(want) {
						t.Logf("%s thread %d: %d frames past the oracle's last (%s)", c.name, id, len(got)-len(want), past)
						walks[id] = got[:len(want)]
					}
				}
			}
			if fmt.Sprint(both[id]) != fmt.Sprint(want) {
				t.Errorf("%s thread %d, .sym and program: %x, gdb %x", c.name, id, both[id], want)
			}
			why, short := elfOnlyShortfalls[c.name]
			switch equal := fmt.Sprint(elfOnly[id]) == fmt.Sprint(want); {
			case short && equal:
				t.Errorf("%s thread %d, program alone: equals gdb's now; drop it from elfOnlyShortfalls", c.name, id)
			case short:
				t.Logf("%s thread %d, program alone: known shortfall (%s): %x, gdb %x", c.name, id, why, elfOnly[id], want)
			case !equal:
				t.Errorf("%s thread %d, program alone: %x, gdb %x", c.name, id, elfOnly[id], want)
			}
		}
	}
	t.Logf("frames equal to gdb's from the top / frames walked (* differs from gdb); sym+elf: the .sym "+
		"and the program; elf: the program alone; sym: the .sym alone; elf .sym: the .sym made from the program, "+
		"without its evidence (Options.Native):\n%s", table.String())
}
