package minidump

import "testing"

// WindowsErrorString binary-searches the generated table: it must be
// strictly increasing and pair every code with a name.
func TestWinErrorTableSorted(t *testing.T) {
	if len(winErrorCodes) != len(winErrorNames) || len(winErrorCodes) < 1500 {
		t.Fatalf("%d codes, %d names", len(winErrorCodes), len(winErrorNames))
	}
	for i, c := range winErrorCodes {
		if (i > 0 && c <= winErrorCodes[i-1]) || winErrorNames[i] == "" {
			t.Errorf("entry %d: %d %q", i, c, winErrorNames[i])
		}
	}
}
