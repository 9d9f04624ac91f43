package processor

import (
	"testing"
)

func TestDemangleNames(t *testing.T) {
	// Expected names from llvm-cxxfilt 14.
	frames := []*Frame{
		{Function: "_ZN7testing8internal11CmpHelperEQIiiEENS_15AssertionResultEPKcS4_RKT_RKT0_"},
		{Function: "__ZN3foo3barEv"},
		{Function: "_ZN12crash_client4main17hc6d0b4bc9cfb4c0aE"},
		{Function: "_RNvMs_NtCs5Kh6P2d3ISv_4core3fmtNtB4_9Arguments6as_str"},
		{Function: "`anonymous namespace'::CrashFunction"},
		{Function: "_ZN3foo"}, // malformed: kept
		{},
	}
	want := []string{
		"testing::AssertionResult testing::internal::CmpHelperEQ<int, int>(char const*, char const*, int const&, int const&)",
		"foo::bar()",
		"crash_client::main",
		"<core::fmt::Arguments>::as_str",
		"`anonymous namespace'::CrashFunction",
		"_ZN3foo",
		"",
	}
	st := &ProcessState{Threads: []*Thread{{Frames: frames}, nil}}
	st.DemangleNames()
	for i, f := range frames {
		if f.Function != want[i] {
			t.Errorf("frame %d: %q, want %q", i, f.Function, want[i])
		}
	}
}
