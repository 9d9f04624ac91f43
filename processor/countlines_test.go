package processor

import "testing"

// TestCountLines counts the non-blank lines of a maps stream (rust-minidump's
// memory map count).
func TestCountLines(t *testing.T) {
	for in, want := range map[string]int{
		"": 0, "\n": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\n\n  \t\nb\n": 2, " \r\n x \n": 1,
	} {
		if got := countLines([]byte(in)); got != want {
			t.Errorf("countLines(%q) = %d, want %d", in, got, want)
		}
	}
}
