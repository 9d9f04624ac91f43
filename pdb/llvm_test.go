package pdb

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// The tests here compare what this package reads with llvm-pdbutil's
// dumps of the same PDBs (Debian's llvm package; .ci/run installs it):
// an independent reader of the format.

// corpusPDBs lists the PDBs the oracle tests read: lld's of
// testdata/lld (made by its make.sh) and, when ../shared is there, the
// MSVC ones of Sentry symbolic's corpus.
func corpusPDBs(t *testing.T) []string {
	t.Helper()
	tmp := t.TempDir()
	var paths []string
	for _, name := range []string{"a-i686.pdb", "a-x86_64.pdb"} {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, corpus.ReadZstd(t, filepath.Join("testdata", "lld", name+".zst")), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	dir := filepath.Join("..", "..", "shared", "corpus", "symbolic", "windows")
	shared, _ := filepath.Glob(filepath.Join(dir, "*.pdb"))
	if len(shared) == 0 {
		t.Log("../shared/corpus/symbolic/windows is absent: only lld's PDBs are compared")
	}
	return append(paths, shared...)
}

// fromMSVC reports whether path is one of ../shared's MSVC PDBs, whose
// sizes the tests check.
func fromMSVC(path string) bool { return strings.Contains(path, "shared") }

func pdbutil(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("llvm-pdbutil")
	if err != nil {
		t.Skip("llvm-pdbutil not installed (Debian package llvm)")
	}
	out, err := exec.Command(bin, append([]string{"dump"}, args...)...).Output()
	if err != nil {
		t.Fatalf("llvm-pdbutil %v: %v", args, err)
	}
	return string(out)
}

func openPDB(t *testing.T, path string) *File {
	t.Helper()
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func hex(s string) uint64 {
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		panic(err)
	}
	return v
}

func TestSummaryMatchesPdbutil(t *testing.T) {
	for _, path := range corpusPDBs(t) {
		out := pdbutil(t, "-summary", path)
		f := openPDB(t, path)
		in, err := f.Info()
		if err != nil {
			t.Fatal(err)
		}
		g := in.GUID
		guid := fmt.Sprintf("{%08X-%04X-%04X-%X-%X}", g.Data1, g.Data2, g.Data3, g.Data4[:2], g.Data4[2:])
		for _, want := range []string{
			fmt.Sprintf("Block Size: %d\n", f.BlockSize),
			fmt.Sprintf("Number of blocks: %d\n", f.NumBlocks),
			fmt.Sprintf("Number of streams: %d\n", f.NumStreams()),
			fmt.Sprintf("Signature: %d\n", in.Signature),
			fmt.Sprintf("Age: %d\n", in.Age),
			"GUID: " + guid + "\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: llvm-pdbutil's summary lacks %q:\n%s", path, want, out)
			}
		}
	}
}

func TestModulesAndSectionsMatchPdbutil(t *testing.T) {
	modRE := regexp.MustCompile("(?m)^ *Mod (\\d+) \\| `(.*)`: *\n.*\n *debug stream: (\\d+), # files: (\\d+)")
	vaRE := regexp.MustCompile(`(?m)^ +([0-9A-F]+) virtual address$`)
	for _, path := range corpusPDBs(t) {
		f := openPDB(t, path)
		d, err := f.DBI()
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, m := range modRE.FindAllStringSubmatch(pdbutil(t, "-modules", path), -1) {
			want = append(want, m[2]+" "+m[3]+" "+m[4])
		}
		for _, m := range d.Modules {
			got = append(got, fmt.Sprintf("%s %d %d", m.Name, m.SymStream, m.SourceFiles))
		}
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s: modules\n got %q\nwant %q", path, got, want)
		}
		hs, err := f.SectionHeaders()
		if err != nil {
			t.Fatal(err)
		}
		var vas []uint64
		for _, m := range vaRE.FindAllStringSubmatch(pdbutil(t, "-section-headers", path), -1) {
			vas = append(vas, hex(m[1]))
		}
		if len(vas) != len(hs) || len(hs) == 0 {
			t.Fatalf("%s: %d section headers, llvm-pdbutil %d", path, len(hs), len(vas))
		}
		for i, h := range hs {
			if uint64(h.VirtualAddress) != vas[i] {
				t.Errorf("%s: section %d at %#x, llvm-pdbutil %#x", path, i+1, h.VirtualAddress, vas[i])
			}
		}
	}
}

func TestPublicsMatchPdbutil(t *testing.T) {
	re := regexp.MustCompile("S_PUB32 \\[size = \\d+\\] `(.*)`\n *flags = (.*), addr = (\\d+):(\\d+)")
	for _, path := range corpusPDBs(t) {
		f := openPDB(t, path)
		pubs, err := f.Publics()
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, m := range re.FindAllStringSubmatch(pdbutil(t, "-publics", path), -1) {
			want = append(want, fmt.Sprintf("%s %s:%s %v %v", m[1], m[3], m[4], strings.Contains(m[2], "code"), strings.Contains(m[2], "function")))
		}
		for _, p := range pubs {
			got = append(got, fmt.Sprintf("%s %04d:%04d %v %v", p.Name, p.Section, p.Offset, p.Code, p.Function))
		}
		slices.Sort(want)
		slices.Sort(got)
		if d := firstDiff(got, want); d != "" || len(got) < 100 && fromMSVC(path) || len(got) == 0 {
			t.Errorf("%s: %d publics: %s", path, len(got), d)
		}
	}
}

func TestFrameDataMatchesPdbutil(t *testing.T) {
	for _, path := range corpusPDBs(t) {
		f := openPDB(t, path)
		out := pdbutil(t, "-fpo", path)
		fpo, err := f.FPO()
		if err != nil {
			t.Fatal(err)
		}
		fd, err := f.FrameData()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range fpo {
			// llvm-pdbutil reads fHasSEH from bit 9 of the attributes
			// where cvinfo.h's FPO_DATA has it at bit 11 (cbProlog:8,
			// cbRegs:3, fHasSEH:1, ...), and always prints false for
			// crash.pdb's two records; the FrameData records for the same
			// functions (below) say they have SEH, as this package reads.
			kinds := []string{"FPO", "Trap", "TSS", "Non-FPO"}
			got = append(got, fmt.Sprintf("%08X | %4d | %6d | %6d | %6d | %10d | %6v | %7v | %9s", e.RVA, e.Size, e.Locals, e.Params, e.Prolog, e.SavedRegs, e.UsesBP, false, kinds[e.FrameKind]))
			for _, d := range fd {
				if d.RVA == e.RVA && d.HasSEH != e.HasSEH {
					t.Errorf("%s: FPO at %#x has SEH %v, FrameData %v", path, e.RVA, e.HasSEH, d.HasSEH)
				}
			}
		}
		for _, e := range fd {
			got = append(got, fmt.Sprintf("%08X | %4d | %6d | %6d | %5d | %6d | %10d | %7v | %9v | %5v | %s", e.RVA, e.CodeSize, e.LocalSize, e.ParamsSize, e.MaxStackSize, e.PrologSize, e.SavedRegsSize, e.HasSEH, e.HasEH, e.FunctionStart, e.Program))
		}
		var want []string
		for _, line := range strings.Split(out, "\n") {
			if len(line) > 9 && line[8] == ' ' && line[9] == '|' && line[0] != ' ' {
				want = append(want, strings.TrimRight(line, " "))
			}
		}
		for i := range got {
			got[i] = strings.TrimRight(got[i], " ")
		}
		if d := firstDiff(got, want); d != "" {
			t.Errorf("%s: FPO and FrameData differ from llvm-pdbutil's: %s", path, d)
		}
		if strings.Contains(path, "crash.pdb") && (len(fpo) != 2 || len(fd) != 165) {
			t.Errorf("%s: %d FPO, %d FrameData records; llvm-pdbutil lists 2 and 165", path, len(fpo), len(fd))
		}
	}
}

// moduleDump splits llvm-pdbutil's per-module output into the modules'
// sections.
func moduleDump(out string) map[int]string {
	re := regexp.MustCompile(`(?m)^ *Mod (\d+) \|`)
	locs := re.FindAllStringSubmatchIndex(out, -1)
	m := map[int]string{}
	for i, l := range locs {
		end := len(out)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		n, _ := strconv.Atoi(out[l[2]:l[3]])
		m[n] = out[l[1]:end]
	}
	return m
}

func TestLinesMatchPdbutil(t *testing.T) {
	rangeRE := regexp.MustCompile(`^  ([0-9A-F]{4}):([0-9A-F]{8})-([0-9A-F]{8}), line/addr entries = (\d+)`)
	pairRE := regexp.MustCompile(`(\d+|NSI) ([0-9A-F]{8})`)
	for _, path := range corpusPDBs(t) {
		f := openPDB(t, path)
		d, _ := f.DBI()
		dumps := moduleDump(pdbutil(t, "-l", path))
		total := 0
		for i := range d.Modules {
			var want []string
			file, sec := "", uint64(0)
			sc := bufio.NewScanner(strings.NewReader(dumps[i]))
			for sc.Scan() {
				line := sc.Text()
				switch {
				case line == "" || strings.TrimSpace(line) == "":
				case !strings.HasPrefix(line, " "):
					file = line
					if j := strings.LastIndex(file, " ("); j >= 0 {
						file = file[:j]
					}
				case rangeRE.MatchString(line):
					sec = hex(rangeRE.FindStringSubmatch(line)[1])
				default:
					for _, p := range pairRE.FindAllStringSubmatch(line, -1) {
						want = append(want, fmt.Sprintf("%s %d:%x %s", file, sec, hex(p[2]), p[1]))
					}
				}
			}
			mi, err := f.ModuleInfo(&d.Modules[i])
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range mi.Lines {
				name, err := mi.FileName(l.File)
				if err != nil {
					t.Fatal(err)
				}
				ln := strconv.Itoa(int(l.Line))
				if l.Line == 0xf00f00 || l.Line == 0xfeefee { // "no step into" and hidden code
					ln = "NSI"
				}
				got = append(got, fmt.Sprintf("%s %d:%x %s", name, l.Section, l.Offset, ln))
			}
			slices.Sort(got)
			slices.Sort(want)
			if d := firstDiff(got, want); d != "" {
				t.Errorf("%s module %d: lines: %s", path, i, d)
			}
			total += len(got)
		}
		if total < 300 && fromMSVC(path) || total == 0 {
			t.Errorf("%s: only %d lines compared", path, total)
		}
	}
}

func TestInlineeLinesMatchPdbutil(t *testing.T) {
	re := regexp.MustCompile(`(?m)^ *0x([0-9A-F]+) \| +(\d+) \| (.*?)(?: \((?:MD5|SHA1|SHA256|None)\b.*\))?$`)
	for _, path := range corpusPDBs(t) {
		f := openPDB(t, path)
		d, _ := f.DBI()
		dumps := moduleDump(pdbutil(t, "-il", path))
		total := 0
		for i := range d.Modules {
			var want, got []string
			for _, m := range re.FindAllStringSubmatch(dumps[i], -1) {
				want = append(want, fmt.Sprintf("%x %s %s", hex(m[1]), m[2], m[3]))
			}
			mi, err := f.ModuleInfo(&d.Modules[i])
			if err != nil {
				t.Fatal(err)
			}
			for id, il := range mi.InlineeLines {
				name, err := mi.FileName(il.File)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%x %d %s", id, il.Line, name))
			}
			slices.Sort(got)
			slices.Sort(want)
			if d := firstDiff(got, want); d != "" {
				t.Errorf("%s module %d: inlinee lines: %s", path, i, d)
			}
			total += len(got)
		}
		if total == 0 {
			t.Errorf("%s: no inlinee lines compared", path)
		}
	}
}

// TestInlineSitesMatchPdbutil checks the decoding of the binary
// annotations: llvm-pdbutil prints each code offset an annotation sets
// ("code 0x3F") and the line delta from the inlinee's line ("line 9");
// each is a range of ours, in order.
func TestInlineSitesMatchPdbutil(t *testing.T) {
	siteRE := regexp.MustCompile(`S_INLINESITE2? \[`)
	codeRE := regexp.MustCompile(`code 0x([0-9A-F]+) \(\+0x[0-9A-F]+\)(?: line (\d+))?`)
	for _, path := range corpusPDBs(t) {
		f := openPDB(t, path)
		d, _ := f.DBI()
		dumps := moduleDump(pdbutil(t, "-symbols", path))
		sites := 0
		for i := range d.Modules {
			mi, err := f.ModuleInfo(&d.Modules[i])
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range mi.Procs {
				var walk func(*InlineSite)
				walk = func(s *InlineSite) {
					var sb strings.Builder
					for _, r := range s.Ranges {
						fmt.Fprintf(&sb, "%x/%d ", r.Offset-p.Offset, int64(r.Line)-int64(mi.InlineeLines[s.Inlinee].Line))
					}
					got = append(got, sb.String())
					for _, c := range s.Children {
						walk(c)
					}
				}
				for _, s := range p.Inlines {
					walk(s)
				}
			}
			var want []string
			blocks := siteRE.Split(dumps[i], -1)
			lineRE := regexp.MustCompile(`line (-?\d+) \([+-]`)
			for _, b := range blocks[1:] {
				var sb strings.Builder
				line := 0
				for j, l := range strings.Split(b, "\n") {
					if j > 0 && strings.Contains(l, "| S_") {
						break // the next record
					}
					if m := lineRE.FindStringSubmatch(l); m != nil {
						line, _ = strconv.Atoi(m[1])
					}
					if m := codeRE.FindStringSubmatch(l); m != nil {
						fmt.Fprintf(&sb, "%x/%d ", hex(m[1]), line)
					}
				}
				want = append(want, sb.String())
			}
			if d := firstDiff(got, want); d != "" {
				t.Errorf("%s module %d: inline sites: %s", path, i, d)
			}
			sites += len(got)
		}
		if sites == 0 {
			t.Errorf("%s: no inline sites compared", path)
		}
	}
}

// firstDiff describes the first difference of two lists, "" if none.
func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("item %d: got %q, llvm-pdbutil %q", i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d items, llvm-pdbutil %d", len(got), len(want))
	}
	return ""
}

// TestCrossModuleMatchesPdbutil checks the cross-module exports against
// llvm-pdbutil's, and that every inline site's cross-module id (bits
// 31..20 pick an import, 19..0 an id in it) resolves through them to an
// LF_FUNC_ID or LF_MFUNC_ID.
func TestCrossModuleMatchesPdbutil(t *testing.T) {
	re := regexp.MustCompile(`(?m)^ *0x([0-9A-F]+) \| 0x([0-9A-F]+)$`)
	for _, path := range corpusPDBs(t) {
		f := openPDB(t, path)
		d, _ := f.DBI()
		tpi, _ := f.Types()
		ipi, _ := f.IDs()
		dumps := moduleDump(pdbutil(t, "-xme", path))
		resolved := 0
		for i := range d.Modules {
			mi, err := f.ModuleInfo(&d.Modules[i])
			if err != nil {
				t.Fatal(err)
			}
			var want, got []string
			for _, m := range re.FindAllStringSubmatch(dumps[i], -1) {
				want = append(want, fmt.Sprintf("%x %x", hex(m[1]), hex(m[2])))
			}
			for local, global := range mi.exports {
				got = append(got, fmt.Sprintf("%x %x", local, global))
			}
			slices.Sort(want)
			slices.Sort(got)
			if d := firstDiff(got, want); d != "" {
				t.Errorf("%s module %d: exports: %s", path, i, d)
			}
			var walk func(s *InlineSite)
			walk = func(s *InlineSite) {
				if s.Inlinee&0x80000000 != 0 {
					id, err := f.ResolveID(mi, s.Inlinee)
					if _, _, ok := ipi.FuncID(id, tpi); err != nil || !ok {
						t.Errorf("%s module %d: inlinee %#x: %#x, %v", path, i, s.Inlinee, id, err)
					}
					resolved++
				}
				for _, c := range s.Children {
					walk(c)
				}
			}
			for _, p := range mi.Procs {
				for _, s := range p.Inlines {
					walk(s)
				}
			}
		}
		if strings.Contains(path, "crash.pdb") && resolved == 0 {
			t.Errorf("%s: no cross-module inlinee resolved", path)
		}
	}
}
