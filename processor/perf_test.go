package processor

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
)

// perfSymbols returns the perf corpus directory and its symbol tree, or
// skips: the .sym files are made by perf/make-symbols.sh (not shipped).
func perfSymbols(tb testing.TB) (perf, syms string) {
	tb.Helper()
	return corpus.Shared(tb, "perf"), corpus.PerfSymbols(tb)
}

// TestPerfAgainstGDB checks every thread of the 20 llvmcrash dumps against
// gdb's backtrace of the original core (an oracle independent of Breakpad):
// the same frames, by return address, at every depth.
func TestPerfAgainstGDB(t *testing.T) {
	perf, syms := perfSymbols(t)
	dumps, _ := filepath.Glob(filepath.Join(perf, "dumps", "*.dmp"))
	total, same := 0, 0
	for _, path := range dumps {
		name := strings.TrimSuffix(filepath.Base(path), ".dmp")
		b, err := os.ReadFile(filepath.Join(perf, "gdb", name+".frames.txt"))
		if err != nil {
			t.Fatal(err)
		}
		gdb := map[uint32][]string{}
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(l)
			if len(f) > 2 && f[0] == "GDBTHREAD" {
				id, _ := strconv.ParseUint(f[1], 10, 32)
				gdb[uint32(id)] = f[2:]
			}
		}
		d, err := minidump.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		st, err := Process(d, symcompress.NewDirSupplier(syms), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range st.Threads {
			want := gdb[th.ID]
			total += len(want)
			if len(th.Frames) != len(want) {
				t.Errorf("%s thread %d: %d frames, gdb %d", name, th.ID, len(th.Frames), len(want))
			}
			for i := 0; i < min(len(want), len(th.Frames)); i++ {
				if got := strconv.FormatUint(th.Frames[i].ReturnAddress(), 16); got == want[i] {
					same++
				} else {
					t.Errorf("%s thread %d frame %d: %s, gdb %s", name, th.ID, i, got, want[i])
				}
			}
		}
		d.Close()
	}
	t.Logf("%d of gdb's %d frames identical", same, total)
}

// BenchmarkProcess processes the deepest perf dump with a fresh supplier
// each time (as one minidump_stackwalk run does) and with a warm one (a
// batch reusing loaded symbols).
func BenchmarkProcess(b *testing.B) {
	perf, syms := perfSymbols(b)
	path := filepath.Join(perf, "dumps", "llvmcrash-07-diag-w3-s7.dmp")
	d, err := minidump.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			if _, err := Process(d, symcompress.NewDirSupplier(syms), Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		sup := symcompress.NewDirSupplier(syms)
		if _, err := Process(d, sup, Options{}); err != nil { // load the symbols once
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := Process(d, sup, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
