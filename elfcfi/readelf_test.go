package elfcfi

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// This file compares our decoding with readelf's on the test binaries
// (testdata/gen.sh): readelf --debug-dump=frames-interp for the DWARF
// tables, readelf -u for .ARM.exidx.

// testFile is a test binary and its readelf outputs.
type testFile struct {
	name   string // also the stem of the oracle files in testdata
	binary string
}

var testFiles = []testFile{
	{"amd64-eh", "testdata/amd64-eh.zst"},
	{"amd64-df", "testdata/amd64-df.zst"},
	{"x86-eh", "testdata/x86-eh.zst"},
	{"x86-df", "testdata/x86-df.zst"},
	{"arm-eh", "testdata/arm-eh.zst"},
	{"arm-df", "testdata/arm-df.zst"},
	{"arm64-eh", "testdata/arm64-eh.zst"},
	{"arm64-df", "testdata/arm64-df.zst"},
	{"arm64-crashdemo", "../testdata/cores/arm64-crashdemo.zst"},
	{"arm-crashdemo", "../testdata/cores/arm-crashdemo.zst"},
}

func openTestELF(t *testing.T, path string) *elf.File {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(corpus.ReadZstd(t, path)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// readelfFDE is one FDE of readelf's frames-interp listing.
type readelfFDE struct {
	begin, end uint64
	cols       []string // column names after LOC and CFA
	rows       [][]string
}

var (
	sectionLine = regexp.MustCompile(`^Contents of the (\S+) section:`)
	fdeLine     = regexp.MustCompile(`^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)`)
	namedReg    = regexp.MustCompile(`\b(r\d+) \([a-z0-9]+\)`)
)

// parseFramesInterp reads readelf --debug-dump=frames-interp output into
// section name -> FDE offset -> FDE.
func parseFramesInterp(t *testing.T, text []byte) map[string]map[uint64]*readelfFDE {
	out := map[string]map[uint64]*readelfFDE{}
	var section string
	var cur *readelfFDE
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if m := sectionLine.FindStringSubmatch(line); m != nil {
			section, cur = m[1], nil
			out[section] = map[uint64]*readelfFDE{}
			continue
		}
		if m := fdeLine.FindStringSubmatch(line); m != nil {
			off, _ := strconv.ParseUint(m[1], 16, 64)
			begin, _ := strconv.ParseUint(m[2], 16, 64)
			end, _ := strconv.ParseUint(m[3], 16, 64)
			cur = &readelfFDE{begin: begin, end: end}
			if out[section] == nil {
				out[section] = map[uint64]*readelfFDE{}
			}
			out[section][off] = cur
			continue
		}
		if strings.TrimSpace(line) == "" || strings.Contains(line, " CIE ") {
			cur = nil
			continue
		}
		if cur == nil {
			continue
		}
		fields := strings.Fields(namedReg.ReplaceAllString(line, "$1"))
		if fields[0] == "LOC" {
			cur.cols = fields[2:]
			continue
		}
		cur.rows = append(cur.rows, fields)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// regNames are readelf's names of DWARF registers, by machine; a register
// without a name is "r<n>".
var regNames = map[elf.Machine][]string{
	elf.EM_X86_64: {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
		"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
		"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
		"st0", "st1", "st2", "st3", "st4", "st5", "st6", "st7",
		"mm0", "mm1", "mm2", "mm3", "mm4", "mm5", "mm6", "mm7",
		"rflags", "es", "cs", "ss", "ds", "fs", "gs", "", "", "fs.base", "gs.base", "", "", "tr", "ldtr"},
	elf.EM_386: {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "eflags",
		"", "st0", "st1", "st2", "st3", "st4", "st5", "st6", "st7", "", "",
		"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
		"mm0", "mm1", "mm2", "mm3", "mm4", "mm5", "mm6", "mm7",
		"fcw", "fsw", "mxcsr", "es", "cs", "ss", "ds", "fs", "gs", "", "", "tr", "ldtr"},
	elf.EM_AARCH64: {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
		"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21",
		"x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30", "sp",
		32: "pc", 64: "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",
		"v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21",
		"v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"},
}

func regName(m elf.Machine, reg uint64) string {
	if names := regNames[m]; reg < uint64(len(names)) && names[reg] != "" {
		return names[reg]
	}
	return fmt.Sprintf("r%d", reg)
}

func regNumber(t *testing.T, m elf.Machine, name string, ra uint64) uint64 {
	if name == "ra" {
		return ra
	}
	for i, n := range regNames[m] {
		if n == name {
			return uint64(i)
		}
	}
	if n, err := strconv.ParseUint(strings.TrimPrefix(name, "r"), 10, 64); err == nil && strings.HasPrefix(name, "r") {
		return n
	}
	t.Fatalf("readelf register name %q unknown", name)
	return 0
}

// readelfRule renders a rule as readelf does; no rule is "u" as well.
func readelfRule(r Rule, ok bool) string {
	if !ok {
		return "u"
	}
	switch r.Kind {
	case RuleUndefined:
		return "u"
	case RuleSameValue:
		return "s"
	case RuleOffset:
		return fmt.Sprintf("c%+d", r.Offset)
	case RuleValOffset:
		return fmt.Sprintf("v%+d", r.Offset)
	case RuleRegister:
		return fmt.Sprintf("r%d", r.Reg)
	case RuleExpression:
		return "exp"
	case RuleValExpression:
		return "vexp"
	}
	return "?"
}

func readelfCFA(m elf.Machine, c CFARule) string {
	if c.Expr != nil {
		return "exp"
	}
	return fmt.Sprintf("%s%+d", regName(m, c.Reg), c.Offset)
}

func TestFramesMatchReadelf(t *testing.T) {
	for _, tf := range testFiles {
		t.Run(tf.name, func(t *testing.T) {
			f := openTestELF(t, tf.binary)
			tables, err := FromELF(f)
			if err != nil {
				t.Fatal(err)
			}
			oracle := parseFramesInterp(t, corpus.ReadZstd(t, "testdata/"+tf.name+".frames.txt.zst"))
			compared := 0
			for name, sec := range map[string]*Section{".eh_frame": tables.EHFrame, ".debug_frame": tables.DebugFrame} {
				want := oracle[name]
				if sec == nil {
					if len(want) > 0 {
						t.Errorf("%s: readelf lists %d FDEs, we found no section", name, len(want))
					}
					continue
				}
				fdes, err := sec.Entries()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got := map[uint64]*FDE{}
				for _, fde := range fdes {
					got[fde.Offset] = fde
				}
				for off, w := range want {
					if w.begin == w.end {
						continue // an empty FDE: we skip it
					}
					fde := got[off]
					if fde == nil {
						t.Errorf("%s: FDE at %#x: missing", name, off)
						continue
					}
					compareFDE(t, f.Machine, fde, w)
					compared++
				}
				if len(fdes) > len(want) {
					t.Errorf("%s: %d FDEs, readelf lists %d", name, len(fdes), len(want))
				}
			}
			if compared == 0 && len(oracle[".eh_frame"])+len(oracle[".debug_frame"]) > 0 {
				t.Fatal("no FDE compared")
			}
			t.Logf("%d FDEs equal to readelf's", compared)
		})
	}
}

func compareFDE(t *testing.T, m elf.Machine, fde *FDE, w *readelfFDE) {
	t.Helper()
	where := fmt.Sprintf("FDE at %#x", fde.Offset)
	if fde.Begin != w.begin || fde.End != w.end {
		t.Errorf("%s: range %#x..%#x, readelf %#x..%#x", where, fde.Begin, fde.End, w.begin, w.end)
		return
	}
	if len(w.rows) == 0 {
		return // readelf prints no table for an FDE without instructions
	}
	rows, err := fde.Rows()
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	// readelf prints a row for a location advanced to the FDE's end; it
	// covers nothing and we make none.
	for len(w.rows) > 0 {
		loc, _ := strconv.ParseUint(w.rows[len(w.rows)-1][0], 16, 64)
		if loc < fde.End || len(w.rows) == 1 {
			break
		}
		w.rows = w.rows[:len(w.rows)-1]
	}
	if len(rows) != len(w.rows) {
		t.Errorf("%s: %d rows, readelf %d:\n%v", where, len(rows), len(w.rows), w.rows)
		return
	}
	for i, r := range rows {
		wr := w.rows[i]
		loc, _ := strconv.ParseUint(wr[0], 16, 64)
		got := []string{fmt.Sprintf("%x", r.Loc), readelfCFA(m, r.CFA)}
		want := []string{fmt.Sprintf("%x", loc), wr[1]}
		for _, name := range w.cols {
			rule, ok := r.Rule(regNumber(t, m, name, fde.CIE.RAReg))
			got = append(got, readelfRule(rule, ok))
		}
		want = append(want, wr[2:]...)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s row %d:\n got %v\nwant %v (columns %v)", where, i, got, want, w.cols)
		}
	}
}
