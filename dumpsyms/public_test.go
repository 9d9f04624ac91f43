package dumpsyms

import "testing"

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
