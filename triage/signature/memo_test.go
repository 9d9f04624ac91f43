package signature

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

// TestMemoKeepsSignatures: signatures made with the remembered names equal
// those made afresh, on the first stack and on later ones (read from the
// memo), for C++, Rust (the same name in a .rs file is normalised apart)
// and frames without a function.
func TestMemoKeepsSignatures(t *testing.T) {
	r := DefaultRules()
	fresh := *r
	fresh.memo = nil
	stacks := [][]triage.Frame{
		{{Function: "abort"}, {Function: "std::vector<int, std::allocator<int> >::push_back(int const&) [clone .cold.1]"},
			{Function: "ns::Foo::bar(char const*) const", File: "foo.cc", Line: 3}, {Module: "libc.so.6", Offset: "0x10"}},
		{{Function: "core::panicking::panic::h0123456789abcdef", File: "src/lib.rs"},
			{Function: "core::panicking::panic::h0123456789abcdef", File: "foo.cc"}, {File: "/src/x.c", Line: 9}, {Offset: "0x20"}},
	}
	for round := range 2 {
		for _, st := range stacks {
			got, want := r.Generate(st, true), fresh.Generate(st, true)
			if got != want {
				t.Errorf("round %d: %q, afresh %q", round, got, want)
			}
		}
	}
	if n := len(r.memo.by); n != 5 {
		t.Errorf("memo holds %d names, want 5", n)
	}
}
