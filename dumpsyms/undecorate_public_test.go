package dumpsyms

import "testing"

// TestUndecoratePublic: PUBLIC names as Breakpad's Windows dump_syms
// writes them. The C++ names and their undecorated forms are from
// Breakpad's dump_syms_regtest.pdb and dump_syms_regtest.sym (x86) and
// dump_syms_regtest64 (x64); the C forms as Breakpad strips them.
func TestUndecoratePublic(t *testing.T) {
	for _, tc := range []struct {
		x86    bool
		name   string
		want   string
		params int
	}{
		{true, "?h@C@google_breakpad@@SAPADABV12@@Z", "google_breakpad::C::h(google_breakpad::C const &)", -1},
		{false, "?h@C@google_breakpad@@SAPEADAEBV12@@Z", "google_breakpad::C::h(google_breakpad::C const &)", -1},
		{true, "??1C@google_breakpad@@UAE@XZ", "google_breakpad::C::~C()", -1},
		{true, "?__CxxUnhandledExceptionFilter@@YGJPAU_EXCEPTION_POINTERS@@@Z", "__CxxUnhandledExceptionFilter(_EXCEPTION_POINTERS *)", -1},
		{true, "??_7C@google_breakpad@@6B@", "??_7C@google_breakpad@@6B@", -1}, // a vftable: kept
		{true, "_f@8", "f", 8},
		{true, "@f@12", "f", 4},
		{true, "_main", "main", -1},
		{false, "_main", "_main", -1},
	} {
		s := &symWriter{x86: tc.x86}
		if got, params := s.undecoratePublic(tc.name); got != tc.want || params != tc.params {
			t.Errorf("x86 %v: undecoratePublic(%q) = %q, %d; want %q, %d", tc.x86, tc.name, got, params, tc.want, tc.params)
		}
	}
}
