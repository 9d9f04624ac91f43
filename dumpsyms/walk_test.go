package dumpsyms

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/elfcfi"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// armDumps are testdata's 32-bit ARM crashes of the static arm-crashdemo
// binary (testdata/cores/arm-crashdemo.zst), whose glibc has .ARM.exidx
// and no DWARF CFI.
var armDumps = []string{"arm-O0", "arm-abort", "arm-armmode", "arm-cpp", "arm-fp", "arm-libc", "arm-nofp", "arm-recursion", "arm-threads"}

// TestExidxCFIAgainstGDB walks testdata's ARM crashes with Breakpad's own
// methods (CFI, frame pointer, Breakpad's scan: no code windows) twice:
// with the .sym Google's dump_syms wrote for the unstripped binary, and
// with the same file plus the STACK CFI records our dump_syms makes from
// the binary's .ARM.exidx (for code the .sym's CFI does not cover). Both
// are compared with gdb's backtrace of the same core: with the exidx
// records the walk must equal gdb's up to the first frame whose code has no
// unwind entry (glibc marks abort, pthread_join's and start_thread's code
// EXIDX_CANTUNWIND: gdb unwinds those by prologue analysis, which a .sym
// cannot carry), all of it when there is none, and never be worse than
// before.
func TestExidxCFIAgainstGDB(t *testing.T) {
	root := corpus.Testdata(t)
	const id = "97C1D5E7CD3050B4FA08C2632E99C7BA0"
	orig, err := os.ReadFile(filepath.Join(root, "symbols", "crashdemo", id, "crashdemo.sym"))
	if err != nil {
		t.Skipf("arm crashdemo .sym not present: %v", err)
	}
	binary := corpus.ReadZstd(t, filepath.Join(root, "cores", "arm-crashdemo.zst"))
	merged, symCFI := mergeExidxCFI(t, orig, binary)
	ef, err := elf.NewFile(bytes.NewReader(binary))
	if err != nil {
		t.Fatal(err)
	}
	exidx, err := elfcfiTables(ef)
	if err != nil {
		t.Fatal(err)
	}
	// reachable is how many of gdb's frames CFI can reach: up to and
	// including the first whose code neither the .sym's DWARF CFI nor an
	// exidx entry covers (EXIDX_CANTUNWIND). A caller's code is looked up
	// at its return address - 2, as Breakpad does.
	reachable := func(g []uint64) int {
		for i, pc := range g {
			if i > 0 {
				pc -= 2
			}
			if symCFI(pc) {
				continue
			}
			if e := exidxAt(exidx, pc); e == nil || e.CantUnwind {
				return i + 1
			}
		}
		return len(g)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "crashdemo", id), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "crashdemo", id, "crashdemo.sym"), merged, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := processor.Options{Mode: walker.Breakpad} // Breakpad's walk, as its minidump_stackwalk makes it
	before, after := symcompress.NewDirSupplier(filepath.Join(root, "symbols")), symcompress.NewDirSupplier(dir)
	var table []string
	for _, name := range armDumps {
		gdb := map[uint32][]uint64{}
		for _, th := range oracle.ReadGDBFrames(t, filepath.Join(root, "oracle", name+".frames.txt")) {
			gdb[th.LWP] = th.PCs()
		}
		path := filepath.Join(root, "dumps", name+".dmp")
		b, a := walkPCs(t, path, before, opts), walkPCs(t, path, after, opts)
		for id, g := range gdb {
			pb, pa := prefix(b[id], g), prefix(a[id], g)
			r := reachable(g)
			table = append(table, fmt.Sprintf("%-14s thread %d: gdb %3d frames, %3d reachable | Breakpad's .sym: %3d equal of %3d | with exidx CFI: %3d equal of %3d",
				name, id, len(g), r, pb, len(b[id]), pa, len(a[id])))
			if pa < pb {
				t.Errorf("%s thread %d: %d leading frames equal to gdb's with exidx CFI, %d without", name, id, pa, pb)
			}
			if pa < r || r == len(g) && len(a[id]) != len(g) {
				t.Errorf("%s thread %d: with exidx CFI %x, gdb %x (%d reachable)", name, id, a[id], g, r)
			}
		}
	}
	t.Log("physical frames against gdb's, Breakpad's walker:\n" + strings.Join(table, "\n"))
}

func prefix(ours, gdb []uint64) int {
	n := 0
	for n < len(ours) && n < len(gdb) && ours[n] == gdb[n] {
		n++
	}
	return n
}

// mergeExidxCFI appends to a .sym the STACK CFI records of the binary's
// .ARM.exidx entries whose function start no STACK CFI INIT of the .sym
// covers. It also returns whether the .sym's own CFI covers an address.
func mergeExidxCFI(t *testing.T, sym, binary []byte) ([]byte, func(uint64) bool) {
	f, err := elf.NewFile(bytes.NewReader(binary))
	if err != nil {
		t.Fatal(err)
	}
	li := loadInfoOf(f)
	var covered []*cfiEntry
	for _, line := range strings.Split(string(sym), "\n") {
		var addr, size uint64
		if n, _ := fmt.Sscanf(line, "STACK CFI INIT %x %x", &addr, &size); n == 2 {
			covered = append(covered, &cfiEntry{addr: addr + li.base, size: size})
		}
	}
	tables, err := elfcfiTables(f)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(sym)
	added := 0
	for _, e := range exidxEntries(tables, f, li, covered) {
		fmt.Fprintf(&b, "STACK CFI INIT %x %x ", e.addr-li.base, e.size)
		writeRules(&b, e.initial)
		b.WriteByte('\n')
		added++
	}
	if added < 100 {
		t.Fatalf("only %d exidx entries added", added)
	}
	return []byte(b.String()), func(a uint64) bool {
		for _, e := range covered {
			if a >= e.addr && a < e.addr+e.size {
				return true
			}
		}
		return false
	}
}

// walkPCs walks a dump and returns each thread's physical frames' PCs
// (Thumb bit cleared, as gdb prints them), by thread id.
func walkPCs(t *testing.T, path string, syms symfile.Supplier, opts processor.Options) map[uint32][]uint64 {
	d, err := minidump.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := processor.Process(d, syms, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint32][]uint64{}
	for _, th := range st.Threads {
		var pcs []uint64
		for _, f := range th.Frames {
			if f.Trust == walker.TrustInline {
				continue
			}
			pc, _ := f.Context.IP()
			pcs = append(pcs, pc&^1)
		}
		out[th.ID] = pcs
	}
	return out
}

func elfcfiTables(f *elf.File) (*elfcfi.Exidx, error) {
	t, err := elfcfi.FromELF(f)
	if err != nil {
		return nil, err
	}
	if t.Exidx == nil {
		return nil, fmt.Errorf("no .ARM.exidx")
	}
	return t.Exidx, nil
}

// exidxAt returns the entry of x covering pc (the last that starts at or
// below it), or nil.
func exidxAt(x *elfcfi.Exidx, pc uint64) *elfcfi.ExidxEntry {
	var found *elfcfi.ExidxEntry
	for i := 0; i < x.Len(); i++ {
		e, err := x.Entry(i)
		if err != nil || e.Func > pc {
			break
		}
		found = e
	}
	return found
}
