package elfsupplier

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/elfsym"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// TestARMDumpsFromTheBinaryAlone walks testdata's ARM crashes with no .sym
// at all, only the stripped static binary (testdata/cores/arm-crashdemo)
// found by build id under a --debuginfo-path root. It checks the plumbing
// (the binary is found, its .sym made and used) and records what the
// binary alone gives: arm-abort crashes in glibc, whose .ARM.exidx takes
// the walk through pthread_kill and raise to abort exactly as gdb (4
// frames, abort's code being EXIDX_CANTUNWIND). The other crashes are in
// the test program, which has no unwind entries once stripped (its CFI was
// in .debug_frame), and with no function symbols either the scan accepts
// no candidate: those walks stop after gdb's first frame. Without any
// symbols they would go on with junk frames (25 to 36 of them, of which
// only the first is gdb's).
func TestARMDumpsFromTheBinaryAlone(t *testing.T) {
	root := corpus.Testdata(t)
	dir := t.TempDir()
	binary := corpus.ReadZstd(t, filepath.Join(root, "cores", "arm-crashdemo.zst"))
	// Leading frames equal to gdb's, by dump.
	minEqual := map[string]int{"arm-O0": 1, "arm-abort": 4, "arm-armmode": 1, "arm-cpp": 1, "arm-fp": 1,
		"arm-libc": 1, "arm-nofp": 1, "arm-recursion": 2}
	for name, want := range minEqual {
		path := filepath.Join(root, "dumps", name+".dmp")
		d, err := minidump.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		mods, _ := d.Modules()
		if len(mods) == 0 {
			t.Fatalf("%s: no modules", name)
		}
		// Put the binary where a user's --debuginfo-path would have it.
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(mods[0].Name)), binary, 0o644); err != nil {
			t.Fatal(err)
		}
		sup := New(context.Background(), &elfsym.Locator{Roots: []string{dir}})
		st, err := processor.Process(d, sup, processor.Options{})
		if err != nil {
			t.Fatal(err)
		}
		gdb := oracle.ReadGDBFrames(t, filepath.Join(root, "oracle", name+".frames.txt"))
		for _, th := range st.Threads {
			var g []uint64
			for _, gt := range gdb {
				if gt.LWP == th.ID {
					g = gt.PCs()
				}
			}
			var pcs []uint64
			for _, f := range th.Frames {
				if f.Trust != walker.TrustInline {
					pc, _ := f.Context.IP()
					pcs = append(pcs, pc&^1)
				}
			}
			n := 0
			for n < len(pcs) && n < len(g) && pcs[n] == g[n] {
				n++
			}
			if n < want || len(pcs) > n+1 {
				t.Errorf("%s thread %d: %x, gdb %x: want %d leading frames equal and at most one more", name, th.ID, pcs, g, want)
			}
			t.Logf("%-14s thread %d: %d of gdb's %d frames, %d walked", name, th.ID, n, len(g), len(pcs))
		}
		d.Close()
	}
}

// TestRefusals checks a module whose file under the root has another build
// id gets no symbols, and the error says why.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	other := corpus.ReadZstd(t, "../elfcfi/testdata/arm-eh.zst")
	if err := os.WriteFile(filepath.Join(dir, "crashdemo"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	sup := New(context.Background(), &elfsym.Locator{Roots: []string{dir}})
	_, err := sup.Symbols(symfile.ModuleKey{CodeFile: "/bin/crashdemo", CodeID: "E7D5C19730CDB450FA08C2632E99C7BAB6400CD6"})
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, symfile.ErrNotFound) || !strings.Contains(err.Error(), "build id") {
		t.Fatalf("error %v, want a NotFoundError naming the build id", err)
	}
	if _, err := sup.Symbols(symfile.ModuleKey{CodeFile: "/bin/x", CodeID: "not hex"}); !errors.Is(err, symfile.ErrNotFound) {
		t.Errorf("bad code id: %v", err)
	}
}
