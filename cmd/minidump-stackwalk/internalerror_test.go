package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// panickingWriter stands for a bug: writing to it panics.
type panickingWriter struct{}

func (panickingWriter) Write([]byte) (int, error) { panic("a bug in a printer") }

// TestInternalErrorStatus: a panic ends the run with status 3 and a
// message with the stack, not Go's exit status 2, which is the usage
// errors' (issue 26, item 19).
func TestInternalErrorStatus(t *testing.T) {
	var stderr bytes.Buffer
	status := runGuarded([]string{corpus.Testdata(t, "dumps", "amd64-fp.dmp")}, panickingWriter{}, &stderr)
	if status != exitInternal {
		t.Errorf("status %d, want %d", status, exitInternal)
	}
	if s := stderr.String(); !strings.Contains(s, "internal error") || !strings.Contains(s, "a bug in a printer") || !strings.Contains(s, "goroutine") {
		t.Errorf("stderr does not say what failed and where:\n%s", s)
	}
}
