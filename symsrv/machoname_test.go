package symsrv

import (
	"regexp"
	"testing"
)

// notMachOName is a hand-written matcher (no regexp built at start-up);
// the pattern it replaced is its specification.
func TestNotMachONameAsRegexp(t *testing.T) {
	re := regexp.MustCompile(`(?i)\.(pdb|dll|exe|sys|so(\.[0-9]+)*)$`)
	for _, n := range []string{"crash", "libc.so.6", "libc.so", "a.PDB", "x.dll", "x.EXE", "k.sys", "foo.6", "x.1.2", "foo.pdb.1", "libfoo.dylib", "libfoo.dylib.1", "a.so.1.2.3", "a.so.", "a..so", "", ".so", "so", "a.so.x"} {
		if got, want := notMachOName(n), re.MatchString(n); got != want {
			t.Errorf("%q: %v, regexp %v", n, got, want)
		}
	}
}
