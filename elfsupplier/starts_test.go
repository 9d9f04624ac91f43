package elfsupplier

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/elfsym"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/prologue"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// symStarts reads the FUNC and PUBLIC addresses of a .sym file (Thumb bit
// cleared), sorted.
func symStarts(t *testing.T, path string) []uint64 {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "FUNC" && f[0] != "PUBLIC" {
			continue
		}
		a := f[1]
		if a == "m" {
			a = f[2]
		}
		v, err := strconv.ParseUint(a, 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v&^1)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// TestCallerPrologueStarts checks the prologue rules of callers in the
// stripped arm crashdemo's exidx-covered code against its .ARM.exidx
// entries, which the compiler wrote for its call sites: for each Thumb BL
// that is an instruction of a function of the program's .sym (Breakpad's
// dump_syms of the unstripped program) and that an exidx entry covers,
// the CFA and return address rules read from the prologue of the
// function the stripped file's evidence finds must equal the entry's.
// Most functions' starts here are not what a symbol would give: the
// evidence is unwind entries, call targets and the ends of earlier
// functions.
func TestCallerPrologueStarts(t *testing.T) {
	root := corpus.Testdata(t)
	data := corpus.ReadZstd(t, filepath.Join(root, "cores", "arm-crashdemo.zst"))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crashdemo"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	sup := New(context.Background(), &elfsym.Locator{Roots: []string{dir}})
	nm := sup.Native(symfile.ModuleKey{CodeFile: "/x/crashdemo", CodeID: "E7D5C19730CDB450FA08C2632E99C7BAB6400CD6"})
	m, ok := nm.(*Module)
	if !ok || m.file == nil {
		t.Fatalf("no module: %v", nm)
	}
	starts := symStarts(t, filepath.Join(root, "symbols", "crashdemo", "97C1D5E7CD3050B4FA08C2632E99C7BA0", "crashdemo.sym"))
	seg := m.segs[0]
	total, agree := 0, 0
	var bad []string
	for i := 0; i+4 <= len(seg.data); i += 2 {
		hw1 := uint64(binary.LittleEndian.Uint16(seg.data[i:]))
		hw2 := uint64(binary.LittleEndian.Uint16(seg.data[i+2:]))
		if hw1&0xf800 != 0xf000 || hw2&0xd000 != 0xd000 {
			continue
		}
		rel := seg.rel + uint64(i)
		k := sort.Search(len(starts), func(k int) bool { return starts[k] > rel }) - 1
		if k < 0 || rel-starts[k] > 0x2000 || rel-starts[k] < 2 || !thumbBoundary(m.code(starts[k], int(rel-starts[k])+4), int(rel-starts[k])) {
			continue
		}
		ra := rel + 4
		q := walker.NativeQuery{Rel: ra - 2 | 1}
		exidx, ok := m.file.CFIRules(q.Rel)
		if !ok {
			continue
		}
		got, ok := m.functionFor(q, ra-2)
		if !ok {
			continue
		}
		total++
		fr := prologue.Analyze(prologue.Thumb, m.code(got, prologue.MaxBytes), got, ra-2)
		have := fr.Rules()
		// exidx gives the CFA from sp; the prologue from the frame
		// pointer once one is set up: compare the stack adjustment.
		if (exidx.CFA == have[".cfa"] || exidx.CFA == fmt.Sprintf("sp %d +", fr.SPBelow)) && exidx.RA == have[".ra"] {
			agree++
		} else if len(bad) < 10 {
			bad = append(bad, strconv.FormatUint(rel, 16))
			t.Logf("%#x: exidx %s / %s; evidence start %#x: %s / %s (symbol %#x)", rel, exidx.CFA, exidx.RA, got, have[".cfa"], have[".ra"], starts[k])
		}
	}
	t.Logf("%d of %d exidx-covered call sites: the prologue's CFA and return address equal the exidx entry's; first others at %v", agree, total, bad)
	if total < 800 || agree*100 < total*97 {
		t.Errorf("%d of %d call sites agree, want at least 97%% of at least 800", agree, total)
	}
}

// thumbBoundary reports whether an instruction starts at off when code
// is read in order from its start: the BL is an instruction of the
// function, not the second half of another or literal data.
func thumbBoundary(code []byte, off int) bool {
	i := 0
	for i < off && i+2 <= len(code) {
		if binary.LittleEndian.Uint16(code[i:])>>11 >= 0x1d {
			i += 4
		} else {
			i += 2
		}
	}
	return i == off
}
