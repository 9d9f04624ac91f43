package arm64

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// TestCallerTablesDocumented: modeOf picks each table for its mode, and
// docs/design.md lists each one's rules in its order.
func TestCallerTablesDocumented(t *testing.T) {
	for _, c := range []struct {
		table string
		env   walker.Env
		want  *mode
	}{
		{"breakpad", walker.Env{Mode: walker.Breakpad, OS: "linux"}, &breakpadRules},
		{"extended", walker.Env{OS: "ios"}, &extendedRules},
	} {
		if got := modeOf(&c.env); got != c.want {
			t.Errorf("%s: modeOf chose %v", c.table, walkertest.RuleNames(got.rules))
		}
		walkertest.CheckDocumentedRules(t, "arm64", c.table, walkertest.RuleNames(c.want.rules))
	}
}
