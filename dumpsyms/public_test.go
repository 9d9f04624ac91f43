package dumpsyms

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// TestDemangleName checks names whose demangling by __cxa_demangle we must
// reproduce; the expected values are libstdc++ 12's __cxa_demangle output
// (a 5-line C++ program printing it), the first cases seen in Google's
// dump_syms output for Debian 12's libunistring and libwebp.
func TestDemangleName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"_ZN3foo3barEi", "foo::bar(int)"},
		{"main", "main"},
		{"u8_casecmp", "_casecmp"},
		{"VP8LGetInfo", "LGetInfo* volatile"},
		{"i", "int"},
		{"ii", "ii"},         // two types: not one type, kept
		{"_Zbad", "_Zbad"},   // not a name: kept
		{"memcpy", "memcpy"}, // not a type
	} {
		if got := demangleName(tc.in); got != tc.want {
			t.Errorf("demangleName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMiniDebugInfoPublics checks that the stripped MiniDebugInfo copy of
// elfsym's test program gets the PUBLIC records of its static functions
// (binutils nm's list in elfsym/testdata/prog.nm.txt), and that
// BreakpadCompat, like Google's dump_syms, leaves them out.
func TestMiniDebugInfoPublics(t *testing.T) {
	f, err := elf.NewFile(bytes.NewReader(corpus.ReadZstd(t, "../elfsym/testdata/prog-mini.zst")))
	if err != nil {
		t.Fatal(err)
	}
	nm, err := os.ReadFile("../elfsym/testdata/prog.nm.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, compat := range []bool{false, true} {
		var out bytes.Buffer
		if err := Write(&out, f, "prog-mini", Options{BreakpadCompat: compat}); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(nm)), "\n") {
			fields := strings.Fields(line)
			addr, _ := strconv.ParseUint(fields[0], 16, 64)
			rec := fmt.Sprintf("PUBLIC %x 0 %s\n", addr, fields[3]) // load base 0
			if got := strings.Contains(out.String(), rec); got == compat {
				t.Errorf("compat %v: %q present: %v", compat, rec, got)
			}
		}
	}
}
