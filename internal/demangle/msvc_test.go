package demangle

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
)

// msvcName is a line of testdata/msvc-names.tsv: a decorated function
// name of a real PDB and the name Breakpad's Windows dump_syms wrote for
// it ("-" where none is known).
type msvcName struct{ decorated, breakpad string }

func readMSVCNames(t testing.TB) []msvcName {
	t.Helper()
	b, err := os.ReadFile("testdata/msvc-names.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var out []msvcName
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		d, bp, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("msvc-names.tsv: no tab in %q", line)
		}
		out = append(out, msvcName{d, bp})
	}
	return out
}

// TestMSVCAgainstBreakpad: every function name of the PDBs undecorates,
// and as Breakpad's dump_syms (DbgHelp) wrote it wherever its .sym names it.
func TestMSVCAgainstBreakpad(t *testing.T) {
	names := readMSVCNames(t)
	known := 0
	for _, n := range names {
		got, ok := MSVC(n.decorated)
		if !ok {
			t.Errorf("MSVC(%q) failed", n.decorated)
			continue
		}
		if n.breakpad == "-" {
			continue
		}
		known++
		if got != n.breakpad {
			t.Errorf("MSVC(%q)\n got  %q\n want %q (Breakpad)", n.decorated, got, n.breakpad)
		}
	}
	if len(names) < 90 || known < 50 {
		t.Fatalf("only %d names, %d with Breakpad's", len(names), known)
	}
}

var (
	undnameTag   = regexp.MustCompile(`\b(class|struct|union|enum) `)
	undnameSpace = regexp.MustCompile(`\*(&|\*|const|volatile)`)
	undnameXtor  = regexp.MustCompile("(`[^']*)\\b([cd])tor\\b")
)

// dbghelpStyle turns llvm-undname's output, with the options nearest
// Breakpad's flags, into DbgHelp's spelling, which Breakpad's .sym files
// show: no class/struct/union/enum keyword (UNDNAME_NO_ECSU), no
// __ptr64/__cdecl (NO_MS_KEYWORDS), no const of this (NO_THISTYPE), ","
// between arguments, `> >`, `T * const`, `T * &&`, "deleting
// destructor" (LLVM's "dtor", "ctor" in special names), and Breakpad's
// final "(void)" as "()".
func dbghelpStyle(s string) string {
	s = undnameTag.ReplaceAllString(s, "")
	for undnameXtor.MatchString(s) {
		s = undnameXtor.ReplaceAllStringFunc(s, func(m string) string {
			if strings.HasSuffix(m, "ctor") {
				return strings.TrimSuffix(m, "ctor") + "constructor"
			}
			return strings.TrimSuffix(m, "dtor") + "destructor"
		})
	}
	for _, r := range [][2]string{{", ", ","}, {" __ptr64", ""}, {"__cdecl ", ""}} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	for strings.Contains(s, ">>") {
		s = strings.ReplaceAll(s, ">>", "> >")
	}
	for undnameSpace.MatchString(s) {
		s = undnameSpace.ReplaceAllString(s, "* $1")
	}
	s = strings.TrimSuffix(s, " const")
	if strings.HasSuffix(s, "(void)") {
		s = strings.TrimSuffix(s, "(void)") + "()"
	}
	return s
}

// undnameExtra are manglings of clang's tests (LLVM's
// test/Demangle/ms-arg-qualifiers.test and ms-operators.test) for cases
// the PDBs lack: cv of pointers to pointers, function pointers and their
// back-references, rvalue references, conversion and other operators,
// special member names, anonymous namespaces, enums, integer and nullptr
// template arguments.
var undnameExtra = []string{
	"?foo_pcd@@YAXPECD@Z", "?foo_rad@@YAXREAD@Z", "?foo_sad@@YAXSEAD@Z",
	"?foo_pbqad@@YAXPEBQEAD@Z", "?foo_pcrad@@YAXPECREAD@Z", "?foo_qapad@@YAXQEAPEAD@Z",
	"?foo_pbqbd@@YAXPEBQEBD@Z", "?foo_abqbd@@YAXAEBQEBD@Z", "?foo_a6ahxz@@YAXA6AHXZ@Z",
	"?foo_q6ahxz@@YAX$$Q6AHXZ@Z", "?foo_fnptrbackref1@@YAXP6AXQEAH@Z1@Z",
	"?ret_fnptrarray@@YAP6AXQEAH@ZXZ", "?mangle_no_backref2@@YAXP6AXXZP6AXXZ@Z",
	"?mangle_yes_backref0@@YAXQEAH0@Z", "?pr23325@@YAXQEBUS@@0@Z",
	"??2@YAPEAX_K@Z", "??BBase@@QEAAHXZ", "??RBase@@QEAAHXZ", "??_6Base@@QEAAHH@Z",
	"??_DDiamond@@QEAAXXZ", "??_F?$SomeTemplate@H@@QAEXXZ", "??_H@YAXPEAX_K1P6APEAX0@Z@Z",
	"??_U@YAPEAX_KAEAVklass@@@Z", "??_V@YAXPEAXAEAVklass@@@Z",
	"?f@?A0x12345678@@YAXXZ", "?g@@YAXW4E@ns@@@Z", "?h@@YAX_N_W_J_K@Z", "?v@@YAXHZZ",
	"?t@@YAXV?$C@$0A@@@V?$C@$0?0@@V?$C@$0BA@@@@Z", "?t@@YAXV?$C@$$T@@@Z",
	"?t@@YAXV?$A@V?$B@H@@@@@Z",
}

// TestMSVCAgainstUndname compares every name, and undnameExtra, with
// LLVM's llvm-undname (Debian's llvm, which .ci/run installs), in
// DbgHelp's spelling.
func TestMSVCAgainstUndname(t *testing.T) {
	undname, err := exec.LookPath("llvm-undname")
	if err != nil {
		t.Skip("llvm-undname not installed (Debian package llvm)")
	}
	names := readMSVCNames(t)
	for _, n := range undnameExtra {
		names = append(names, msvcName{n, "-"})
	}
	var in strings.Builder
	for _, n := range names {
		in.WriteString(n.decorated + "\n")
	}
	cmd := exec.Command(undname, "--no-access-specifier", "--no-calling-convention", "--no-member-type", "--no-return-type")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	// llvm-undname echoes each name, then its undecorated form and a blank line.
	lines := strings.Split(string(out), "\n")
	if len(lines) < 3*len(names) {
		t.Fatalf("llvm-undname printed %d lines for %d names", len(lines), len(names))
	}
	for i, n := range names {
		if lines[3*i] != n.decorated {
			t.Fatalf("llvm-undname line %d: %q, want the echo of %q", 3*i, lines[3*i], n.decorated)
		}
		want := dbghelpStyle(lines[3*i+1])
		if got, _ := MSVC(n.decorated); got != want {
			t.Errorf("MSVC(%q)\n got  %q\n want %q (llvm-undname %q)", n.decorated, got, want, lines[3*i+1])
		}
	}
}

// Names that are not functions (variables, vftables, string literals) or
// are malformed are not undecorated: the caller keeps them.
func TestMSVCKeeps(t *testing.T) {
	for _, name := range []string{
		"", "?", "main", "_main@4", "?x@@3HA", "??_7C@google_breakpad@@6B@",
		"??_C@_02HCKGKOFO@?$CI?$AA@", "?_pnhHeap@@3P6AHI@ZA",
		"?f@@YAXH", "?f@@YAX0@Z", "??0@QAE@XZ", "?f@" + strings.Repeat("?$a@", 500) + "@YAXXZ",
		"?f@@YAX" + strings.Repeat("PA", 5000) + "H@Z",
		// __restrict, and pointers to function pointers: no oracle of DbgHelp's spelling.
		"?foo_piad@@YAXPEIAD@Z", "?mangle_yes_backref3@@YAXQEAP6AXXZ0@Z",
	} {
		if out, ok := MSVC(name); ok {
			t.Errorf("MSVC(%.60q) = %q, want it refused", name, out)
		}
	}
}

// FuzzMSVC undecorates hostile names within fuzzbudget's bounds.
func FuzzMSVC(f *testing.F) {
	for _, n := range readMSVCNames(f) {
		f.Add(n.decorated)
	}
	f.Fuzz(func(t *testing.T, name string) {
		fuzzbudget.Default.Run(t, func() {
			if out, ok := MSVC(name); ok && (out == "" || len(out) > 1<<maxOutputPow) {
				t.Fatalf("MSVC(%q): %d bytes", name, len(out))
			}
		})
	})
}
