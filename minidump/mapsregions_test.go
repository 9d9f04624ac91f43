package minidump

import (
	"bytes"
	"testing"
)

// TestNextFieldSplitsAsFields checks nextField against bytes.Fields on the
// separators a hostile maps line may hold: tabs, carriage returns, Unicode
// spaces (NBSP, NEL) and invalid UTF-8, which is no space.
func TestNextFieldSplitsAsFields(t *testing.T) {
	for _, line := range []string{
		"", " ", "\t\r\n", "a", "  a  ", "a b c",
		"7f00-7f10 r-xp 00000000 08:01 42 /lib/x.so",
		"7f00-7f10\tr-xp", "\r7f00-7f10\vr-xp\f",
		"7f00-7f10\u00a0r-xp", "7f00-7f10\u0085r-xp", "7f00-7f10\u2028r-xp 0",
		"7f00-7f10\xc2r-xp", "\xff\xfe 7f00-7f10 rw-p",
	} {
		want := bytes.Fields([]byte(line))
		var got [][]byte
		for f, rest := nextField([]byte(line)); f != nil; f, rest = nextField(rest) {
			got = append(got, f)
		}
		if len(got) != len(want) {
			t.Errorf("%q: %d fields %q, want %q", line, len(got), got, want)
			continue
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%q: field %d %q, want %q", line, i, got[i], want[i])
			}
		}
	}
}
