package signature

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

// FuzzParse: a rules file never panics the parser or the generator.
func FuzzParse(f *testing.F) {
	f.Add(DefaultRulesText(), "operator<<(int) const")
	f.Add([]byte("max_length 4\n[prefix]\n.*\n"), "a<b(c)>d")
	f.Fuzz(func(t *testing.T, rules []byte, name string) {
		r, err := Parse(rules, "fuzz")
		if err != nil {
			return
		}
		sig := r.Generate([]triage.Frame{{Function: name}, {Module: name, Offset: "0x1"}, {File: name, Line: 1}}, true)
		if len(sig) > r.MaxLength {
			t.Fatalf("signature %q longer than max_length %d", sig, r.MaxLength)
		}
	})
}

// FuzzParseGrouping: a grouping rules file never panics the parser or the
// generator, and a signature stays within max_length.
func FuzzParseGrouping(f *testing.F) {
	f.Add([]byte("module:libc.so.* -group\npath:**/src/** +app\nfunction:main v-group"), "main")
	f.Add([]byte(`!function:"operator new" ^-group max-frames=2`+"\nfamily:native +prefix"), "operator new")
	f.Fuzz(func(t *testing.T, rules []byte, name string) {
		g, err := ParseGrouping(rules, "fuzz")
		if err != nil {
			return
		}
		r := DefaultRules().WithGrouping(g)
		sig := r.Generate([]triage.Frame{{Function: name, Module: name}, {Module: name, Offset: "0x1", File: name}, {File: name, Line: 1}}, true)
		if len(sig) > r.MaxLength {
			t.Fatalf("signature %q longer than max_length %d", sig, r.MaxLength)
		}
	})
}
