package processor

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
)

// gdbFrames reads testdata/oracle/NAME.frames.txt (gdb_frames.py): thread
// id -> physical frame addresses ("normal", and "sigtramp": the signal
// trampoline a handler returns into, which our walk shows too), outermost
// last.
func gdbFrames(t *testing.T, path string) map[uint32][]uint64 {
	out := map[uint32][]uint64{}
	for _, th := range oracle.ReadGDBFrames(t, path) {
		out[th.LWP] = nil
		for _, f := range th.Frames {
			if f.Type == "normal" || f.Type == "sigtramp" {
				out[th.LWP] = append(out[th.LWP], f.PC)
			}
		}
	}
	return out
}

// gdbKnown lists threads of testdata/ where we differ from gdb, by "dump
// thread-id" -> first differing frame. None is left: the i386 threads that
// walk through main, whose prologue realigns the stack (GCC's DRAP; its CFA
// is a DWARF expression dump_syms cannot convert), used to end at main or
// go on with main's realigned esp into junk, as Breakpad's do; the walker
// now takes the saved pre-alignment stack pointer (x86 byDRAP), and so on
// amd64 (amd64-realign: two DRAP frames through r10, amd64 byDRAP).
var gdbKnown = map[string]int{}

// TestTestdataAgainstGDB compares the walks of testdata/'s x86 and amd64
// dumps (converted from cores by core2md) with gdb's backtraces of the
// same cores, by frame address.
func TestTestdataAgainstGDB(t *testing.T) {
	root, err := corpus.RepoRoot()
	if err != nil {
		t.Skip(err)
	}
	td := filepath.Join(root, "testdata")
	dumps, _ := filepath.Glob(filepath.Join(td, "dumps", "*.dmp"))
	total, same := 0, 0
	for _, path := range dumps {
		name := strings.TrimSuffix(filepath.Base(path), ".dmp")
		d, err := minidump.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		si, err := d.SystemInfo()
		if err != nil || (si.Arch != minidump.ArchX86 && si.Arch != minidump.ArchAMD64) {
			d.Close()
			continue
		}
		gdb := gdbFrames(t, filepath.Join(td, "oracle", name+".frames.txt"))
		st, err := Process(d, symcompress.NewDirSupplier(filepath.Join(td, "symbols")), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range st.Threads {
			want, ok := gdb[th.ID]
			if !ok {
				continue
			}
			known, isKnown := gdbKnown[name+" "+strconv.FormatUint(uint64(th.ID), 10)]
			for i := range max(len(want), len(th.Frames)) {
				if isKnown && i >= known {
					break
				}
				total++
				if i < len(want) && i < len(th.Frames) && th.Frames[i].ReturnAddress() == want[i] {
					same++
					continue
				}
				var got, w uint64
				if i < len(th.Frames) {
					got = th.Frames[i].ReturnAddress()
				}
				if i < len(want) {
					w = want[i]
				}
				t.Errorf("%s thread %d frame %d: %#x, gdb %#x", name, th.ID, i, got, w)
			}
		}
		d.Close()
	}
	t.Logf("%d of %d frames identical to gdb's (documented differences excluded)", same, total)
}
