package demangle

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// The expected strings below were produced by llvm-cxxfilt 14 (and agree
// with GNU c++filt 2.40 except that c++filt spells out std::string's template
// arguments), not by this package. For Rust legacy
// names both tools print the "::h<16 hex>" hash suffix; rust-minidump (via
// rustc-demangle's alternate form) and this package omit it, so the table
// holds their output with that suffix removed.
var oracleTable = []struct{ mangled, want string }{
	{"_ZN3foo3barEv", "foo::bar()"},
	{"_ZNK3Foo3barEv", "Foo::bar() const"},
	{"_Z1fi", "f(int)"},
	{"_ZL3bazv", "baz()"},
	{"_ZN3foo3barEv.cold", "foo::bar() [clone .cold]"},
	{"_ZN38ExceptionHandlerTest_SimpleWithFD_Test8TestBodyEv", "ExceptionHandlerTest_SimpleWithFD_Test::TestBody()"},
	{"_ZN7testing13PrintToStringIiEESsRKT_", "std::string testing::PrintToString<int>(int const&)"},
	// Mach-O: one extra leading underscore.
	{"__ZN3foo3barEv", "foo::bar()"},
	// Rust legacy.
	{"_ZN12crash_client4main17hc6d0b4bc9cfb4c0aE", "crash_client::main"},
	{"_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h0123456789abcdefE",
		"core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>"},
	// Rust v0 (llvm-cxxfilt).
	{"_RNvMs_NtCs5Kh6P2d3ISv_4core3fmtNtB4_9Arguments6as_str", "<core::fmt::Arguments>::as_str"},
	{"_RNvCs1234_7mycrate3foo", "mycrate::foo"},
}

func TestOracleTable(t *testing.T) {
	for _, tc := range oracleTable {
		if got := Name(tc.mangled); got != tc.want {
			t.Errorf("Name(%q) = %q, want %q", tc.mangled, got, tc.want)
		}
	}
}

// Names that are not mangled, or are malformed, come back unchanged.
func TestKeepsUndemanglable(t *testing.T) {
	for _, name := range []string{
		"", "main", "_start", "__libc_start_main", "_RTC_CheckEsp", "_ZwClose",
		"_Z", "_ZN3foo", "__Z", "_R", "_RNv", "`anonymous namespace'::CrashFunction",
		"<&[u8] as object::read::read_ref::ReadRef>::len", "std::rt::lang_start_internal",
		strings.Repeat("_ZN", 10000),
	} {
		if got := Name(name); got != name {
			t.Errorf("Name(%q) = %q, want it unchanged", name, got)
		}
		if _, ok := TryName(name); ok {
			t.Errorf("TryName(%q) reported success", name)
		}
	}
}

var rustHash = regexp.MustCompile(`::h[0-9a-f]{16}$`)

// TestAgainstCxxfilt demangles every mangled PUBLIC name of Breakpad's
// breakpad_unittests symbol files and compares with llvm-cxxfilt, when both
// are present. (GNU c++filt expands std::string to its full template form.)
func TestAgainstCxxfilt(t *testing.T) {
	cxxfilt, err := exec.LookPath("llvm-cxxfilt")
	if err != nil {
		t.Skip("llvm-cxxfilt not installed")
	}
	root := corpus.Shared(t, "corpus", "breakpad", "symbols", "microdump", "breakpad_unittests")
	files, _ := filepath.Glob(filepath.Join(root, "*", "*.sym"))
	var names []string
	seen := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) >= 4 && fields[0] == "PUBLIC" {
				n := fields[len(fields)-1]
				if strings.HasPrefix(n, "_Z") && !seen[n] {
					seen[n] = true
					names = append(names, n)
				}
			}
		}
	}
	if len(names) < 100 {
		t.Fatalf("found only %d mangled PUBLIC names", len(names))
	}
	cmd := exec.Command(cxxfilt)
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(want) != len(names) {
		t.Fatalf("llvm-cxxfilt returned %d lines for %d names", len(want), len(names))
	}
	mismatch := 0
	for i, n := range names {
		w := rustHash.ReplaceAllString(want[i], "")
		if got := Name(n); got != w {
			mismatch++
			if mismatch <= 10 {
				t.Errorf("Name(%q)\n got  %q\n want %q (llvm-cxxfilt)", n, got, w)
			}
		}
	}
	t.Logf("%d/%d names equal to llvm-cxxfilt", len(names)-mismatch, len(names))
}

func FuzzName(f *testing.F) {
	for _, tc := range oracleTable {
		f.Add(tc.mangled)
	}
	f.Add("main")
	f.Fuzz(func(t *testing.T, name string) {
		out := Name(name)
		if out == "" && name != "" {
			t.Fatalf("Name(%q) returned an empty string", name)
		}
	})
}
