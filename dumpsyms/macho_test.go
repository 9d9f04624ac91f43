package dumpsyms

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/dwarfsyms"
	"github.com/minidump-stackwalk/minidump-stackwalk/machofile"
)

const symbolicMacOS = "../../shared/corpus/symbolic/macos/"

func writeSymbolicCrash(t *testing.T, opts Options, withBin, withDSYM bool) string {
	t.Helper()
	if _, err := os.Stat(symbolicMacOS + "crash"); err != nil {
		t.Skipf("../shared is absent: %v", err)
	}
	var bin, dsym *machofile.File
	var err error
	if withBin {
		if bin, err = machofile.Open(symbolicMacOS+"crash", ""); err != nil {
			t.Fatal(err)
		}
	}
	if withDSYM {
		if dsym, err = machofile.Open(machofile.DSYMFile(symbolicMacOS+"crash"), ""); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := WriteMachO(&out, bin, dsym, symbolicMacOS+"crash", opts); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestMachOBreakpad compares our output for symbolic's x86_64 program and
// its dSYM with Breakpad's Mac dump_syms output for them (crash.sym),
// record for record. Two kinds of difference remain, both Breakpad's
// errors of the 2017 build that wrote crash.sym:
//   - 25 FUNC records it names "<name omitted>": their DIEs name their
//     function only through a DW_AT_abstract_origin that refers forward
//     in the unit (llvm-dwarfdump --lookup=0x100000d20: DIE 0x3c64 ->
//     0x3c83), which that Breakpad did not follow. We name them; the test
//     checks each name against the symbol table's symbol at the address.
//   - one C++ name its demangler printed with "const&&&" for a forwarded
//     "const&" (reference collapsing): "(MDMemoryDescriptor const&)" is
//     what the mangled name says.
//
// Everything else, FILE, line, PUBLIC (data symbols included, one
// underscore dropped, clone suffixes as " (.0)") and the STACK CFI of
// __eh_frame, is equal.
func TestMachOBreakpad(t *testing.T) {
	got := strings.Split(writeSymbolicCrash(t, Options{BreakpadCompat: true}, true, true), "\n")
	data, err := os.ReadFile(symbolicMacOS + "crash.sym")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(string(data), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d lines, Breakpad %d", len(got), len(want))
	}
	symNames := symtabNames(t)
	omitted := 0
	for i := range want {
		if got[i] == want[i] {
			continue
		}
		g, w := strings.Fields(got[i]), strings.Fields(want[i])
		switch {
		case len(g) > 4 && g[0] == "FUNC" && strings.HasSuffix(want[i], " <name omitted>") && strings.Join(w[:4], " ") == strings.Join(g[:4], " "):
			addr, _ := strconv.ParseUint(g[1], 16, 64)
			name := strings.Join(g[4:], " ")
			if !symNames[addr][name] {
				t.Errorf("line %d: %q: no symbol of that name at %#x (%v)", i+1, got[i], addr, symNames[addr])
			}
			omitted++
		case strings.Replace(want[i], "const&&&)", "const&)", 1) == got[i]:
		default:
			t.Errorf("line %d:\n ours     %s\n Breakpad %s", i+1, got[i], want[i])
		}
	}
	if omitted != 25 {
		t.Errorf("%d <name omitted> differences, 25 expected", omitted)
	}
}

// symtabNames is the binary's symbols by address, demangled.
func symtabNames(t *testing.T) map[uint64]map[string]bool {
	f, err := machofile.Open(symbolicMacOS+"crash", "")
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]map[string]bool{}
	for _, s := range syms {
		rel := s.Value - f.TextAddr
		if out[rel] == nil {
			out[rel] = map[string]bool{}
		}
		name := strings.TrimPrefix(s.Name, "_")
		if d, err := dwarfsyms.Demangle(name); err == nil {
			name = d
		}
		out[rel][name] = true
	}
	return out
}

// TestMachODSYMAlone: a dSYM gives the symbols and no STACK CFI.
func TestMachODSYMAlone(t *testing.T) {
	both := writeSymbolicCrash(t, Options{}, true, true)
	alone := writeSymbolicCrash(t, Options{}, false, true)
	var noCFI []string
	for _, l := range strings.SplitAfter(both, "\n") {
		if !strings.HasPrefix(l, "STACK ") {
			noCFI = append(noCFI, l)
		}
	}
	if alone != strings.Join(noCFI, "") {
		t.Errorf("the dSYM alone does not give the binary+dSYM records without STACK CFI")
	}
}

type cfiRecord struct {
	addr, size string
	rules      []map[string]string // INIT, then each delta
	deltas     []string
}

var ruleRe = regexp.MustCompile(`(\S+): `)

func parseCFIRules(s string) map[string]string {
	out := map[string]string{}
	idx := ruleRe.FindAllStringSubmatchIndex(s, -1)
	for i, m := range idx {
		end := len(s)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		out[s[m[2]:m[3]]] = strings.TrimSpace(s[m[1]:end])
	}
	return out
}

func parseCFI(text string) map[string]*cfiRecord {
	out := map[string]*cfiRecord{}
	var cur *cfiRecord
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || f[0] != "STACK" || f[1] != "CFI" {
			continue
		}
		if f[2] == "INIT" {
			cur = &cfiRecord{addr: f[3], size: f[4]}
			cur.rules = append(cur.rules, parseCFIRules(strings.Join(f[5:], " ")))
			out[f[3]] = cur
		} else if cur != nil {
			cur.deltas = append(cur.deltas, f[2])
			cur.rules = append(cur.rules, parseCFIRules(strings.Join(f[3:], " ")))
		}
	}
	return out
}

// TestMachOSymbolicCFI compares the STACK CFI we derive from compact
// unwind and __eh_frame with symbolic's snapshot for the same binary, as
// the rules in force at every address symbolic's records cover (rules
// compared as sets). The differences, each checked:
//   - at each function's first instruction we write the rules of a
//     function entry (.cfa: $rsp 8 +, the return address at CFA-8:
//     nothing is pushed yet); symbolic writes the encoding's rules, which
//     hold only after the prologue. ld64 merged neighbouring functions of
//     one encoding into one entry; we split entries at LC_FUNCTION_STARTS
//     so each function gets its entry rules.
//   - the six functions whose encoding is x86_64 frameless with an
//     indirect stack size (mode 3): symbolic writes ".cfa: $rsp 8 +" for
//     their whole body; we read the "sub $n, %rsp" immediate the encoding
//     points at. Checked against each prologue as llvm-objdump disassembles
//     it: CFA = 8 + 8*pushes + n, each pushed register at its slot.
func TestMachOSymbolicCFI(t *testing.T) {
	ours := parseCFI(writeSymbolicCrash(t, Options{}, true, true))
	snap, err := os.ReadFile("../../shared/corpus/symbolic/snapshots/test_cfi__cfi_macho.snap")
	if err != nil {
		t.Skip(err)
	}
	theirs := parseCFI(string(snap))
	var starts []uint64
	for addr := range ours {
		a, _ := strconv.ParseUint(addr, 16, 64)
		starts = append(starts, a)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	oursAt := func(a uint64) map[string]string {
		i := sort.Search(len(starts), func(i int) bool { return starts[i] > a }) - 1
		if i < 0 {
			return nil
		}
		r := ours[fmt.Sprintf("%x", starts[i])]
		if size, _ := strconv.ParseUint(r.size, 16, 64); a >= starts[i]+size {
			return nil
		}
		return stateAt(r, a)
	}
	entry := fmt.Sprint(map[string]string{".cfa": "$rsp 8 +", ".ra": ".cfa -8 + ^"})
	indirect := map[string]bool{}
	entries := 0
	for addr, w := range theirs {
		start, _ := strconv.ParseUint(addr, 16, 64)
		size, _ := strconv.ParseUint(w.size, 16, 64)
		// The rules change only where a record of either side starts or
		// changes them.
		points := map[uint64]bool{start: true}
		for _, d := range w.deltas {
			a, _ := strconv.ParseUint(d, 16, 64)
			points[a] = true
		}
		for _, st := range starts {
			if st > start && st < start+size {
				points[st] = true
				for _, d := range ours[fmt.Sprintf("%x", st)].deltas {
					a, _ := strconv.ParseUint(d, 16, 64)
					points[a] = true
				}
			}
		}
		if r := ours[addr]; r != nil {
			for _, d := range r.deltas {
				a, _ := strconv.ParseUint(d, 16, 64)
				points[a] = true
			}
		}
		var at []uint64
		for a := range points {
			at = append(at, a)
		}
		sort.Slice(at, func(i, j int) bool { return at[i] < at[j] })
		for _, a := range at {
			g, want := fmt.Sprint(oursAt(a)), fmt.Sprint(stateAt(w, a))
			if g == want {
				continue
			}
			if _, ok := ours[fmt.Sprintf("%x", a)]; ok && g == entry {
				entries++
				continue
			}
			if want == entry && len(w.rules) == 1 && a > start {
				indirect[addr] = true
				continue
			}
			t.Errorf("%#x (symbolic's record %s):\n ours     %s\n symbolic %s", a, addr, g, want)
			break
		}
	}
	var ind []string
	for a := range indirect {
		ind = append(ind, a)
	}
	sort.Strings(ind)
	if strings.Join(ind, " ") != "1b70 6e00 8150 b1f0 b9e0 bd80" {
		t.Errorf("records differing for indirect stack sizes: %v", ind)
	}
	if entries != 95 {
		t.Errorf("%d function entries with their own rules", entries)
	}
	if _, err := exec.LookPath("llvm-objdump"); err != nil {
		t.Skip("no llvm-objdump: the indirect-stack-size records are not checked against the code")
	}
	for _, addr := range ind {
		a, _ := strconv.ParseUint(addr, 16, 64)
		want := prologueRules(t, symbolicMacOS+"crash", 0x100000000+a)
		if got := oursAt(a + 1); fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("%s: ours %v, the prologue says %v", addr, got, want)
		}
	}
}

var (
	pushRe = regexp.MustCompile(`^\s*[0-9a-f]+:\s+pushq\s+%(\w+)`)
	subRe  = regexp.MustCompile(`^\s*[0-9a-f]+:\s+subq\s+\$(\d+), %rsp`)
)

// prologueRules disassembles an x86_64 function's prologue with
// llvm-objdump: pushes, then "subq $n, %rsp".
func prologueRules(t *testing.T, path string, addr uint64) map[string]string {
	out, err := exec.Command("llvm-objdump", "-d", "--no-show-raw-insn", fmt.Sprintf("--start-address=%#x", addr),
		fmt.Sprintf("--stop-address=%#x", addr+64), path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var pushed []string
	for _, line := range strings.Split(string(out), "\n") {
		if m := pushRe.FindStringSubmatch(line); m != nil {
			pushed = append(pushed, m[1])
			continue
		}
		if m := subRe.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			rules := map[string]string{".cfa": fmt.Sprintf("$rsp %d +", 8+8*len(pushed)+n), ".ra": ".cfa -8 + ^"}
			for i, r := range pushed {
				rules["$"+r] = fmt.Sprintf(".cfa -%d + ^", 16+8*i)
			}
			return rules
		}
	}
	t.Fatalf("%#x: no sub from %%rsp in the prologue:\n%s", addr, out)
	return nil
}

// stateAt is the rules of a record set at addr: the INIT rules overlaid
// with the deltas at or below addr.
func stateAt(r *cfiRecord, addr uint64) map[string]string {
	out := map[string]string{}
	for k, v := range r.rules[0] {
		out[k] = v
	}
	for i, d := range r.deltas {
		if a, _ := strconv.ParseUint(d, 16, 64); a <= addr {
			for k, v := range r.rules[i+1] {
				out[k] = v
			}
		}
	}
	return out
}

// TestMachORBPPrologue: for the x86_64 RBP-frame functions of
// testdata/macos (one compact unwind entry covers both; lld keeps no FDE
// for them), the rules we derive from compact unwind and the prologue's
// bytes hold at every instruction llvm-objdump disassembles: CFA = rsp+8
// before "pushq %rbp", rsp+16 with rbp saved after it, rbp+16 after
// "movq %rsp, %rbp".
func TestMachORBPPrologue(t *testing.T) {
	if _, err := exec.LookPath("llvm-objdump"); err != nil {
		t.Skip("no llvm-objdump")
	}
	const path = "../testdata/macos/x86_64/crash"
	bin, err := machofile.Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	var out bytes.Buffer
	if err := WriteMachO(&out, bin, nil, "crash", Options{}); err != nil {
		t.Fatal(err)
	}
	ours := parseCFI(out.String())
	dis, err := exec.Command("llvm-objdump", "-d", "--no-show-raw-insn", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	insnRe := regexp.MustCompile(`^\s*([0-9a-f]+):\s+(\S.*)$`)
	var fn *cfiRecord
	want := map[string]string{}
	checked := 0
	for _, line := range strings.Split(string(dis), "\n") {
		m := insnRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		a, _ := strconv.ParseUint(m[1], 16, 64)
		rel := fmt.Sprintf("%x", a-bin.TextAddr)
		if r := ours[rel]; r != nil {
			fn, want = r, map[string]string{".cfa": "$rsp 8 +", ".ra": ".cfa -8 + ^"}
			if !strings.HasPrefix(r.rules[len(r.rules)-1][".cfa"], "$rbp") {
				fn = nil // not an RBP frame
			}
		}
		if fn == nil {
			continue
		}
		if g := stateAt(fn, a-bin.TextAddr); fmt.Sprint(g) != fmt.Sprint(want) {
			t.Errorf("%#x %s: ours %v, the code says %v", a, m[2], g, want)
		}
		checked++
		switch strings.Join(strings.Fields(m[2]), " ") {
		case "pushq %rbp":
			want = map[string]string{".cfa": "$rsp 16 +", ".ra": ".cfa -8 + ^", "$rbp": ".cfa -16 + ^"}
		case "movq %rsp, %rbp":
			want = map[string]string{".cfa": "$rbp 16 +", ".ra": ".cfa -8 + ^", "$rbp": ".cfa -16 + ^"}
		case "popq %rbp", "retq":
			fn = nil // the epilogue: our rules hold up to here
		}
	}
	if checked < 8 {
		t.Errorf("%d instructions checked", checked)
	}
}
