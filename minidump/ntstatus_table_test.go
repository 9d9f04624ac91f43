package minidump

import "testing"

// NTStatusString binary-searches the generated table: it must be strictly
// increasing, hold only error codes, and pair every code with a name.
func TestNTStatusTableSorted(t *testing.T) {
	if len(ntStatusCodes) != len(ntStatusNames) || len(ntStatusCodes) < 1500 {
		t.Fatalf("%d codes, %d names", len(ntStatusCodes), len(ntStatusNames))
	}
	for i, c := range ntStatusCodes {
		if c>>30 != 3 || (i > 0 && c <= ntStatusCodes[i-1]) || ntStatusNames[i] == "" {
			t.Errorf("entry %d: %#08x %q", i, c, ntStatusNames[i])
		}
	}
	if got := NTStatusString(0xc0000006); got != "STATUS_IN_PAGE_ERROR" {
		t.Errorf("NTStatusString(0xc0000006) = %q", got)
	}
	if got := NTStatusString(0x80000288); got != "0x80000288" {
		t.Errorf("NTStatusString(0x80000288) = %q; Breakpad names only error codes", got)
	}
}
