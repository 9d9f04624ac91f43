package dumpsyms

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
)

// symRecords is a .sym file split for comparison: the records outside
// STACK CFI in order, and the CFI entries by address.
type symRecords struct {
	other []string
	cfi   map[string]*symCFI // by "address size"
	order []string
}

type symCFI struct {
	initial map[string]string
	deltas  map[string]map[string]string // by address
}

func parseRules(s string) map[string]string {
	rules := map[string]string{}
	// "name: expr name: expr ...": a name is a token ending in ':'.
	var name string
	var expr []string
	flush := func() {
		if name != "" {
			rules[name] = strings.Join(expr, " ")
		}
	}
	for _, tok := range strings.Fields(s) {
		if strings.HasSuffix(tok, ":") {
			flush()
			name, expr = strings.TrimSuffix(tok, ":"), nil
			continue
		}
		expr = append(expr, tok)
	}
	flush()
	return rules
}

func parseSym(t *testing.T, data []byte) *symRecords {
	r := &symRecords{cfi: map[string]*symCFI{}}
	var cur *symCFI
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "STACK CFI INIT "):
			f := strings.SplitN(line, " ", 6)
			key := f[3] + " " + f[4]
			cur = &symCFI{initial: parseRules(f[5]), deltas: map[string]map[string]string{}}
			if _, dup := r.cfi[key]; !dup {
				r.cfi[key] = cur
				r.order = append(r.order, key)
			}
		case strings.HasPrefix(line, "STACK CFI "):
			f := strings.SplitN(line, " ", 4)
			cur.deltas[f[2]] = parseRules(f[3])
		default:
			r.other = append(r.other, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

// additions counts what our CFI adds to Google's.
type additions struct {
	entries, deltas, rules int
	replaced               int // Google's stale rules ours replaces by expressions
	dwarf                  dwarfAdditions
}

// compareWithGoogle checks ours against Google's: identical records outside
// STACK CFI, and every CFI entry, delta and rule of Google's also in ours
// with the same value. It returns what ours adds.
// exprRule says whether our rule for reg at addr (hex text) of the entry
// key came from a DWARF expression: such rules may differ from Google's,
// which keeps the rule in force before the expression.
type exprRuleFunc func(entry, addr, reg string) bool

func compareWithGoogle(t *testing.T, name string, google, ours []byte, fromExpr exprRuleFunc, q *dwarfQuirks) additions {
	t.Helper()
	g, o := parseSym(t, google), parseSym(t, ours)
	var add additions
	if q.any() {
		add.dwarf = compareDWARF(t, name, g.other, o.other, q)
	} else if strings.Join(g.other, "\n") != strings.Join(o.other, "\n") {
		gl, ol := g.other, o.other
		for i := 0; i < len(gl) || i < len(ol); i++ {
			var a, b string
			if i < len(gl) {
				a = gl[i]
			}
			if i < len(ol) {
				b = ol[i]
			}
			if a != b {
				t.Errorf("%s: record %d differs:\ngoogle %q\n  ours %q", name, i, a, b)
				break
			}
		}
	}
	subset := func(key, addr string, gr, or map[string]string) {
		for reg, v := range gr {
			if ov, ok := or[reg]; !ok || ov != v && !fromExpr(key, addr, reg) {
				t.Errorf("%s: entry %s at %s: %s: google %q, ours %q", name, key, addr, reg, v, ov)
			} else if ov != v {
				add.replaced++
			}
		}
		add.rules += len(or) - len(gr)
	}
	for _, key := range g.order {
		ge, oe := g.cfi[key], o.cfi[key]
		if oe == nil {
			t.Errorf("%s: STACK CFI INIT %s missing", name, key)
			continue
		}
		subset(key, strings.Fields(key)[0], ge.initial, oe.initial)
		for addr, gd := range ge.deltas {
			od, ok := oe.deltas[addr]
			if !ok {
				t.Errorf("%s: STACK CFI %s (of %s) missing", name, addr, key)
				continue
			}
			subset(key, addr, gd, od)
		}
		add.deltas += len(oe.deltas) - len(ge.deltas)
	}
	add.entries = len(o.order) - len(g.order)
	return add
}

func googleDumpSyms(t *testing.T, bin string, args ...string) []byte {
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %q: %v", bin, args, err)
	}
	return out.Bytes()
}

// ourDumpSyms writes our .sym of path, and tells which rules came from
// DWARF expressions.
func ourDumpSyms(t *testing.T, path string, dirs []string, opts Options) ([]byte, exprRuleFunc) {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	debug := openDebugLink(t, f, path, dirs)
	if debug != nil {
		defer debug.Close()
	}
	var out bytes.Buffer
	if err := WriteWithDebug(&out, f, debug, path, opts); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	li := loadInfoOf(f)
	entries, err := cfiEntries(f, li, opts.BreakpadCompat)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]*cfiEntry{}
	for _, e := range entries {
		key := fmt.Sprintf("%x %x", e.addr-li.base, e.size)
		if byKey[key] == nil {
			byKey[key] = e
		}
	}
	return out.Bytes(), func(key, addr, reg string) bool {
		e := byKey[key]
		a, err := strconv.ParseUint(addr, 16, 64)
		return e != nil && err == nil && e.fromExpr[cfiRuleKey{a + li.base, reg}]
	}
}

// testELFs are the ELF files in the repository's testdata, with the CFI
// additions each must show (see doc.go).
var testELFs = []struct {
	path                 string
	minEntries, minRules int
}{
	{"../elfcfi/testdata/amd64-eh.zst", 0, 2}, // expression CFAs, sigtramp
	{"../elfcfi/testdata/x86-eh.zst", 0, 7},   // realigned main
	{"../elfcfi/testdata/arm64-eh.zst", 0, 2}, // expressions, sigtramp
	{"../elfcfi/testdata/arm-eh.zst", 12, 0},  // .ARM.exidx
	{"../testdata/cores/arm64-crashdemo.zst", 0, 0},
	{"../testdata/cores/arm-crashdemo.zst", 165, 0}, // exidx-only libc
	// DWARF: C with .debug_frame, C++ (inlines, templates, hot/cold
	// splits), a binary and its --only-keep-debug file.
	{"../elfcfi/testdata/amd64-df.zst", 0, 0},
	{"../elfcfi/testdata/x86-df.zst", 0, 0},
	{"../elfcfi/testdata/arm64-df.zst", 0, 0},
	{"../elfcfi/testdata/arm-df.zst", 0, 0},
	{"testdata/amd64-cxx.zst", 0, 0},
	{"testdata/x86-cxx.zst", 0, 0},
	{"testdata/arm64-cxx.zst", 0, 0},
	{"testdata/arm-cxx.zst", 0, 0},
	{"testdata/amd64-cxx4.zst", 0, 0}, // DWARF 4: .debug_ranges
	{"testdata/x86-cxx4.zst", 0, 0},
	{"../elfsym/testdata/prog.zst", 0, 0},
	{"../elfsym/testdata/prog.debug.zst", 0, 0},
}

// flagSets are the dump_syms flags compared, with our options for them.
var flagSets = []struct {
	args []string
	opts Options
}{
	{nil, Options{}},
	{[]string{"-d", "-m"}, Options{Inlines: true, Multiple: true}},
}

// TestAgainstGoogleDumpSyms runs Google's dump_syms and ours on each ELF
// file of testdata: with BreakpadCompat byte-identical; by default a
// superset of its STACK CFI and, outside STACK CFI, its records plus the
// named differences of compareDWARF.
func TestAgainstGoogleDumpSyms(t *testing.T) {
	bin := oracle.Require(t, "dump_syms")
	dir := t.TempDir()
	for _, tc := range testELFs {
		name := strings.TrimSuffix(filepath.Base(tc.path), ".zst")
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, corpus.ReadZstd(t, tc.path), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, fs := range flagSets {
				checkAgainstGoogle(t, bin, path, nil, fs.args, fs.opts, tc.minEntries, tc.minRules)
			}
		})
	}
}

// TestAgainstGoogleDumpSymsDebugLink runs both with a debug directory on a
// stripped binary whose .gnu_debuglink names its debug file.
func TestAgainstGoogleDumpSymsDebugLink(t *testing.T) {
	bin := oracle.Require(t, "dump_syms")
	dir, debugDir := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "prog-stripped")
	if err := os.WriteFile(path, corpus.ReadZstd(t, "../elfsym/testdata/prog-stripped.zst"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(debugDir, "prog.debug"), corpus.ReadZstd(t, "../elfsym/testdata/prog.debug.zst"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fs := range flagSets {
		checkAgainstGoogle(t, bin, path, []string{debugDir}, fs.args, fs.opts, 0, 0)
	}
	// A wrong CRC is refused, as Google's dump_syms refuses it.
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(filepath.Join(debugDir, "prog.debug"), []byte("not the debug file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := FindDebugLink(f, path, []string{debugDir}); err == nil {
		t.Errorf("FindDebugLink accepted %s with the wrong CRC", p)
	}
}

// checkAgainstGoogle compares ours with Google's dump_syms on path (with
// debug directories dirs) for one flag set.
func checkAgainstGoogle(t *testing.T, bin, path string, dirs, args []string, opts Options, minEntries, minRules int) {
	t.Helper()
	name := filepath.Base(path) + " " + strings.Join(args, " ")
	google := googleDumpSyms(t, bin, append(append(append([]string(nil), args...), path), dirs...)...)
	compatOpts := opts
	compatOpts.BreakpadCompat = true
	compat, _ := ourDumpSyms(t, path, dirs, compatOpts)
	if !bytes.Equal(google, compat) {
		t.Errorf("%s: with BreakpadCompat, not byte-identical to Google's:\n%s", name, lineDiff(google, compat))
	}
	ours, fromExpr := ourDumpSyms(t, path, dirs, opts)
	add := compareWithGoogle(t, name, google, ours, fromExpr, dwarfQuirksOf(t, path, dirs))
	t.Logf("%s: ours adds %d CFI entries, %d delta records, %d rules, replaces %d; %s", name,
		add.entries, add.deltas, add.rules, add.replaced, add.dwarf)
	if add.entries < minEntries || add.rules < minRules {
		t.Errorf("%s: additions %+v, want at least %d entries and %d rules", name, add, minEntries, minRules)
	}
}

// TestAgainstGoogleDumpSymsSystem compares on the files the environment
// variable DUMPSYMS_SYSTEM_FILES lists (a glob, e.g.
// "/usr/lib/x86_64-linux-gnu/*.so*"); skipped when it is not set, as such
// files are not part of the repository.
func TestAgainstGoogleDumpSymsSystem(t *testing.T) {
	glob := os.Getenv("DUMPSYMS_SYSTEM_FILES")
	if glob == "" {
		t.Skip("DUMPSYMS_SYSTEM_FILES not set")
	}
	bin := oracle.Require(t, "dump_syms")
	files, _ := filepath.Glob(glob)
	sort.Strings(files)
	var total additions
	n := 0
	for _, path := range files {
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if f, err := elf.Open(path); err != nil {
			continue
		} else {
			f.Close()
		}
		google := googleDumpSyms(t, bin, "-d", "-m", path)
		compat, _ := ourDumpSyms(t, path, nil, Options{BreakpadCompat: true, Inlines: true, Multiple: true})
		if !bytes.Equal(google, compat) {
			t.Errorf("%s: with BreakpadCompat, not byte-identical to Google's:\n%s", path, lineDiff(google, compat))
		}
		ours, fromExpr := ourDumpSyms(t, path, nil, Options{Inlines: true, Multiple: true})
		add := compareWithGoogle(t, path, google, ours, fromExpr, dwarfQuirksOf(t, path, nil))
		total.replaced += add.replaced
		total.entries += add.entries
		total.deltas += add.deltas
		total.rules += add.rules
		total.dwarf.funcs += add.dwarf.funcs
		total.dwarf.inlines += add.dwarf.inlines
		total.dwarf.publicsReplaced += add.dwarf.publicsReplaced
		n++
	}
	t.Logf("%d files; ours adds %d CFI entries, %d delta records, %d rules, replaces %d; %s", n, total.entries, total.deltas, total.rules, total.replaced, total.dwarf)
}

// lineDiff shows the first differing lines of two files.
func lineDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	var out []string
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out = append(out, fmt.Sprintf("line %d:\n google %q\n   ours %q", i+1, x, y))
			if len(out) == 5 {
				break
			}
		}
	}
	return strings.Join(out, "\n")
}
