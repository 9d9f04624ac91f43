package x86

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// TestCallerTablesDocumented: modeOf picks each table for its mode and
// OS, and docs/design.md lists each one's rules in its order.
func TestCallerTablesDocumented(t *testing.T) {
	for _, c := range []struct {
		table string
		env   walker.Env
		want  *mode
	}{
		{"breakpad", walker.Env{Mode: walker.Breakpad, OS: "linux"}, &breakpadRules},
		{"breakpad", walker.Env{Mode: walker.Breakpad, OS: "windows"}, &breakpadRules},
		{"extended", walker.Env{OS: "mac"}, &extendedRules},
		{"extended, windows", walker.Env{OS: "windows"}, &extendedWindowsRules},
	} {
		if got := modeOf(&c.env); got != c.want {
			t.Errorf("%s: modeOf chose %v", c.table, walkertest.RuleNames(got.rules))
		}
		walkertest.CheckDocumentedRules(t, "x86", c.table, walkertest.RuleNames(c.want.rules))
	}
}
