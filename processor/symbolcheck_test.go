package processor

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

var symbolRejection = regexp.MustCompile(`^word at 0x[0-9a-f]+ = 0x([0-9a-f]+): symbols: (.*)$`)

// symbolRejections walks dump without code (Options.NoCode: the symbols
// alone decide) and returns the scan candidates the symbols ruled out:
// value -> reason.
func symbolRejections(t *testing.T, dump string, roots []string) (map[uint64]string, minidump.Arch) {
	t.Helper()
	d, err := minidump.Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	si, _ := d.SystemInfo()
	var sup symfile.Supplier
	if len(roots) > 0 {
		sup = symcompress.NewDirSupplier(roots...)
	}
	st, err := Process(d, sup, Options{NoCode: true, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]string{}
	add := func(steps []walker.Step) {
		for _, s := range steps {
			if m := symbolRejection.FindStringSubmatch(s.Note); m != nil && s.Rule == walker.RuleScanChecked {
				v, _ := strconv.ParseUint(m[1], 16, 64)
				out[v] = m[2]
			}
		}
	}
	for _, th := range st.Threads {
		for _, f := range th.Frames {
			add(f.Steps)
		}
		add(th.WalkEnd)
	}
	var arch minidump.Arch
	if si != nil {
		arch = si.Arch
	}
	return out, arch
}

// TestSymbolRejectionsOnRealDumps: without code in the dump, the scans of
// all four walkers pass over words the symbols rule out as return
// addresses (retaddr's symbolObjection). In testdata's real crashes gdb
// backtraced the cores: no word passed over is a frame of gdb's, on any
// architecture; and the listed dumps hold the rejections Breakpad takes
// as frames (its oracle output there has them), each for its reason: data
// past the last function (a far PUBLIC _fini, on amd64 and Thumb ARM), the
// program's entry point (_start, a function pointer on the stack; Breakpad's
// corpus dumps have no symbols for the program), the first byte of a
// function.
func TestSymbolRejectionsOnRealDumps(t *testing.T) {
	root, err := corpus.RepoRoot()
	if err != nil {
		t.Skip(err)
	}
	td := filepath.Join(root, "testdata")
	dumps, _ := filepath.Glob(filepath.Join(td, "dumps", "*.dmp"))
	byArch := map[minidump.Arch]int{}
	reasons := map[string]int{}
	for _, path := range dumps {
		name := strings.TrimSuffix(filepath.Base(path), ".dmp")
		rej, arch := symbolRejections(t, path, []string{filepath.Join(td, "symbols")})
		gdb := gdbFrames(t, filepath.Join(td, "oracle", name+".frames.txt"))
		for _, pcs := range gdb {
			for i, pc := range pcs {
				if why, ok := rej[pc]; ok && i > 0 {
					t.Errorf("%s: gdb's frame %d at %#x passed over: %s", name, i, pc, why)
				}
			}
		}
		byArch[arch] += len(rej)
		for _, why := range rej {
			reasons[strings.Fields(why)[0]+" "+strings.Fields(why)[1]]++
		}
	}
	for _, c := range []struct {
		dump, syms string // syms "": none
		word       uint64
		why        string
	}{
		// Breakpad's frame 3 "_fini + 0x27bb8"; gdb's is __libc_start_call_main.
		{"testdata/dumps/amd64-leaf.dmp", "testdata/symbols", 0x4a06f0, "too far past the PUBLIC symbol _fini"},
		// Thumb: Breakpad's "_fini + 0x…" frames in the static program's data.
		{"testdata/dumps/arm-fp.dmp", "testdata/symbols", 0x71ff8, "too far past the PUBLIC symbol _fini"},
		// Breakpad's frame 4 driver+0x1df4: _start's address, pushed by __libc_start_main.
		{"shared:breakpad/dumps/linux_divide_by_zero.dmp", "shared:breakpad/symbols", 0x401df4, "the program's entry point"},
		{"shared:breakpad-generated/dumps/linux-amd64-recursive.dmp", "", 0x55f982cd29b0, "the program's entry point"},
	} {
		path, syms := c.dump, c.syms
		for _, p := range []*string{&path, &syms} {
			switch {
			case strings.HasPrefix(*p, "shared:"):
				*p = filepath.Join(corpus.Shared(t, "corpus"), strings.TrimPrefix(*p, "shared:"))
			case *p != "":
				*p = filepath.Join(root, *p)
			}
		}
		var roots []string
		if syms != "" {
			roots = []string{syms}
		}
		rej, _ := symbolRejections(t, path, roots)
		if rej[c.word] != c.why {
			t.Errorf("%s: word %#x: rejected for %q, want %q", c.dump, c.word, rej[c.word], c.why)
		}
	}
	var lines []string
	for a, n := range byArch {
		lines = append(lines, fmt.Sprintf("%v %d", a, n))
	}
	sort.Strings(lines)
	t.Logf("testdata words the symbols rule out, by architecture: %s; by reason: %v", strings.Join(lines, ", "), reasons)
}
