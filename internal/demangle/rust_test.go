package demangle

import (
	"bufio"
	"compress/gzip"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// rustName is one line of testdata/rust-names.tsv.gz: a Rust symbol of the
// programs scripts/gen-testdata/rust-names.sh builds with rustc, and GNU
// c++filt's output for it.
type rustName struct{ mangled, cxxfilt string }

func readRustNames(t *testing.T) []rustName {
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

// knownV0 are the v0 names the wrapped demangler (ianlancetaylor/demangle)
// cannot read, kept as they are: it reads a decimal number as all the
// digits that follow, where v0's grammar has "0" | [1-9][0-9]*, so the empty
// identifier `0` of a closure or constant followed by a length
// (`default_hook011FIRST_PANIC`: `0`, then `11FIRST_PANIC`) becomes one
// length of 11, and `00uE` as one 0. Six are kept as they are, three come
// out wrong (a closure's number or a `()` argument lost). c++filt reads
// them all. The way out is a v0 demangler of our own.
var knownV0 = map[string]bool{
	"_RINvNtNtCsjrHSEGnQ3l9_3std3sys9backtrace28___rust_begin_short_backtraceNCNCNCINvNtNtB6_6thread9lifecycle15spawn_uncheckedNCNvCs32gj3y4fnmh_4main4mains_0INtNtCsgEmfK2I1SDS_4core6option6OptionmEEs_000uEB1Z_": true,
	"_RNCINvNtNtCsjrHSEGnQ3l9_3std6thread7current17with_current_nameNCNCNvNtB8_9panicking12default_hook00uE0B8_":                                                                                                    true,
	"_RNCNCNCNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal00s_0B9_":                                                                                                                                                true,
	"_RNvNCNKNvNtNtCsjrHSEGnQ3l9_3std2io5stdio14OUTPUT_CAPTURE0023___RUST_STD_INTERNAL_VAL":                                                                                                                         true,
	"_RNvNCNKNvNtNtCsjrHSEGnQ3l9_3std6thread9spawnhook11SPAWN_HOOKS0023___RUST_STD_INTERNAL_VAL":                                                                                                                    true,
	"_RNvNCNKNvNtNtCsjrHSEGnQ3l9_3std9panicking11panic_count17LOCAL_PANIC_COUNT0s_023___RUST_STD_INTERNAL_VAL":                                                                                                      true,
	"_RNvNCNKNvNvMNtNtCsjrHSEGnQ3l9_3std4hash6randomNtBa_11RandomState3new4KEYS0s_023___RUST_STD_INTERNAL_VAL":                                                                                                      true,
	"_RNvNCNvNtCsjrHSEGnQ3l9_3std9panicking12default_hook011FIRST_PANIC":                                                                                                                                            true,
	"_RNvNCNvNtNtCsjrHSEGnQ3l9_3std6thread9lifecycle15spawn_unchecked03MIN":                                                                                                                                         true,
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
		if knownV0[n.mangled] {
			if got := Name(n.mangled); got == want {
				t.Errorf("Name(%q) = c++filt's now: drop it from knownV0", n.mangled)
			}
			continue
		}
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
	t.Logf("%d legacy and %d v0 names: %d differ from c++filt, %d known (knownV0)", legacy, v0, bad, len(knownV0))
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
