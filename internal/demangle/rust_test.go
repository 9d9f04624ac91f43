package demangle

import (
	"bufio"
	"compress/gzip"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
)

// rustName is one line of testdata/rust-names.tsv.gz: a Rust symbol of the
// programs scripts/gen-testdata/rust-names.sh builds with rustc, and GNU
// c++filt's output for it.
type rustName struct{ mangled, cxxfilt string }

func readRustNames(t testing.TB) []rustName {
	t.Helper()
	f, err := os.Open("testdata/rust-names.tsv.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []rustName
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		mangled, filtered, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("rust-names.tsv.gz: no tab in %q", line)
		}
		out = append(out, rustName{mangled, filtered})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	legacyHashSegment = regexp.MustCompile(`::h[0-9a-f]{16}$`)
	v0CrateHash       = regexp.MustCompile(`\[[0-9a-f]+\]`)
	v0ConstType       = regexp.MustCompile(`: (bool|char|[iu](8|16|32|64|128|size))\b`)
)

// nonVerbose turns c++filt's output (libiberty with DMGL_VERBOSE) into
// libiberty's output without it, the form gdb's backtraces use and the one
// we print: without the legacy hash segment, the v0 crates' disambiguators
// and the v0 constants' types. rustc's own test of its demangler
// (tests/ui/symbol-names/const-generics-demangling.rs) shows the two forms
// side by side: `<c[464da6a86cb672f]::Unsigned<11: u8>>` and, in
// rustc-demangle's alternate form, `<c::Unsigned<11>>`.
func nonVerbose(n rustName) string {
	if strings.HasPrefix(n.mangled, "_ZN") {
		return legacyHashSegment.ReplaceAllString(n.cxxfilt, "")
	}
	return v0ConstType.ReplaceAllString(v0CrateHash.ReplaceAllString(n.cxxfilt, ""), "")
}

// TestRustNamesAgainstCxxfilt demangles every Rust symbol of real rustc
// builds (debug and release, panic=unwind and abort, legacy and v0) and
// compares with GNU c++filt's output, kept in testdata/.
func TestRustNamesAgainstCxxfilt(t *testing.T) {
	names := readRustNames(t)
	legacy, v0, bad := 0, 0, 0
	for _, n := range names {
		if strings.HasPrefix(n.mangled, "_R") {
			v0++
		} else {
			legacy++
		}
		want := nonVerbose(n)
		if got := Name(n.mangled); got != want {
			bad++
			if bad <= 10 {
				t.Errorf("Name(%q)\n got  %q\n want %q (c++filt %q)", n.mangled, got, want, n.cxxfilt)
			}
		}
	}
	if legacy < 300 || v0 < 900 {
		t.Fatalf("only %d legacy and %d v0 names in testdata/rust-names.tsv.gz", legacy, v0)
	}
	t.Logf("%d legacy and %d v0 names: %d differ from c++filt", legacy, v0, bad)
}

// TestRustNamesOracleIsCxxfilt checks the kept oracle against the c++filt
// installed here, when there is one: the committed column is its output.
func TestRustNamesOracleIsCxxfilt(t *testing.T) {
	cxxfilt, err := exec.LookPath("c++filt")
	if err != nil {
		t.Skip("GNU c++filt not installed")
	}
	names := readRustNames(t)
	var in strings.Builder
	for _, n := range names {
		in.WriteString(n.mangled + "\n")
	}
	cmd := exec.Command(cxxfilt)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(names) {
		t.Fatalf("c++filt printed %d lines for %d names", len(lines), len(names))
	}
	for i, n := range names {
		if lines[i] != n.cxxfilt {
			t.Errorf("c++filt %q = %q, kept %q", n.mangled, lines[i], n.cxxfilt)
		}
	}
}

// The legacy names where the Itanium demangler we wrap takes the `_` after
// a length for v0's separator and drops it (c++filt and gdb keep it), and
// the legacy rules libiberty has beside it.
func TestRustLegacyUnderscores(t *testing.T) {
	for _, tc := range []struct{ mangled, want string }{
		{"_ZN3std3sys9backtrace28__rust_begin_short_backtrace17h6c727653f19c6cb2E", "std::sys::backtrace::__rust_begin_short_backtrace"},
		{"_ZN4core9core_arch3x864sse212_mm_or_si12817ha26438c669924440E", "core::core_arch::x86::sse2::_mm_or_si128"},
		{"__ZN3std3sys9backtrace28__rust_begin_short_backtrace17h6c727653f19c6cb2E", "std::sys::backtrace::__rust_begin_short_backtrace"},
		{"_ZN4core3fmt5Write10write_char17h720cda75b3d14958E.llvm.9035663520258950765", "core::fmt::Write::write_char"},
		{"_ZN42_$LT$$RF$T$u20$as$u20$core..fmt..Debug$GT$3fmt17h4dd711c03c6e7784E", "<&T as core::fmt::Debug>::fmt"},
		// An escape libiberty does not know: the rest of the identifier verbatim.
		{"_ZN3foo6a$XY$b17h4dd711c03c6e7784E", "foo::a$XY$b"},
		// A hash with fewer than five distinct digits is no Rust hash: C++.
		{"_ZN3foo3bar17h0000000000000000E", "foo::bar::h0000000000000000"},
	} {
		if got := Name(tc.mangled); got != tc.want {
			t.Errorf("Name(%q) = %q, want %q", tc.mangled, got, tc.want)
		}
	}
}

// TestRustV0Bounds: v0 names built to blow up (backrefs doubling a type
// at every level, nesting past libiberty's depth bound, backrefs that
// point forward or at themselves) are kept as they are, quickly.
func TestRustV0Bounds(t *testing.T) {
	// c++filt: a[0]::f::<(u8, u8), ((u8, u8), (u8, u8))>.
	if got, want := Name(doublingV0(2)), "a::f::<(u8, u8), ((u8, u8), (u8, u8))>"; got != want {
		t.Fatalf("doublingV0(2) = %q, want %q", got, want)
	}
	for _, name := range []string{
		doublingV0(40),
		"_RINvC1a1f" + strings.Repeat("T", 3000) + strings.Repeat("E", 3000) + "E",
		"_RNvC1a1f" + strings.Repeat("RR", 2000) + "u",
		"_RNvB_1f",  // a backref to itself
		"_RNvB5_1f", // a backref to no path
		"_RC0",      // an empty name (c++filt: "[0]", the disambiguator alone)
	} {
		if out, ok := TryName(name); ok {
			t.Errorf("TryName(%.60q…) = %.60q…, want it kept", name, out)
		}
	}
	// A `.suffix` is left out, as c++filt does, even an empty one.
	for name, want := range map[string]string{"_RNvC1a1f.": "a::f", "_RC1a.llvm.1": "a"} {
		if got := Name(name); got != want {
			t.Errorf("Name(%q) = %q, want %q", name, got, want)
		}
	}
}

// doublingV0 is a::f::<T1, …, Tn>, each T a tuple of the one before it
// twice, by backref: 2^n u8s in the last.
func doublingV0(levels int) string {
	var sb strings.Builder
	sb.WriteString("INvC1a1f")
	prev := sb.Len()
	sb.WriteString("Thh")
	for range levels - 1 {
		sb.WriteString("E")
		at := sb.Len()
		sb.WriteString("TB" + base62(prev) + "B" + base62(prev))
		prev = at
	}
	sb.WriteString("EE")
	return "_R" + sb.String()
}

// base62 writes n as a v0 backref's base-62 number.
func base62(n int) string {
	if n == 0 {
		return "_"
	}
	n--
	const digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	var b []byte
	for {
		b = append([]byte{digits[n%62]}, b...)
		if n /= 62; n == 0 {
			break
		}
	}
	return string(b) + "_"
}

// FuzzRustV0 demangles hostile v0 names within fuzzbudget's bounds: never
// a panic, never more than the output bound.
func FuzzRustV0(f *testing.F) {
	for _, n := range readRustNames(f) {
		if strings.HasPrefix(n.mangled, "_R") && len(n.mangled) < 200 {
			f.Add(n.mangled)
		}
	}
	f.Fuzz(func(t *testing.T, name string) {
		fuzzbudget.Default.Run(t, func() {
			if out, ok := rustV0(name); ok && len(out) > 1<<maxOutputPow {
				t.Fatalf("rustV0(%q): %d bytes", name, len(out))
			}
		})
	})
}

// TestRustV0MutantsAgainstCxxfilt: names one edit away from real v0 names
// (a character replaced, dropped or the name cut) demangle as c++filt
// demangles them, or are kept as they are where c++filt keeps them.
func TestRustV0MutantsAgainstCxxfilt(t *testing.T) {
	cxxfilt, err := exec.LookPath("c++filt")
	if err != nil {
		t.Skip("GNU c++filt not installed")
	}
	const alphabet = "_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	var mutants []string
	seen := map[string]bool{}
	for i, n := range readRustNames(t) {
		m := n.mangled
		if !strings.HasPrefix(m, "_R") {
			continue
		}
		at := 2 + (i*7919)%(len(m)-2)
		for _, v := range []string{
			m[:at] + string(alphabet[(i*31)%len(alphabet)]) + m[at+1:],
			m[:at] + m[at+1:],
			m[:at],
		} {
			if !seen[v] {
				seen[v] = true
				mutants = append(mutants, v)
			}
		}
	}
	cmd := exec.Command(cxxfilt)
	cmd.Stdin = strings.NewReader(strings.Join(mutants, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(mutants) {
		t.Fatalf("c++filt printed %d lines for %d names", len(lines), len(mutants))
	}
	bad, kept := 0, 0
	for i, m := range mutants {
		want := lines[i]
		if want == m {
			kept++
		} else {
			want = nonVerbose(rustName{m, want})
		}
		if got := Name(m); got != want {
			bad++
			if bad <= 10 {
				t.Errorf("Name(%q)\n got  %q\n want %q (c++filt %q)", m, got, want, lines[i])
			}
		}
	}
	t.Logf("%d mutants (%d kept by c++filt): %d differ", len(mutants), kept, bad)
}
