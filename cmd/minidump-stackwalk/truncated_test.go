package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
)

// A stack cut by --max-frames-total (the default cap included) is a
// partial result, as a walk stopped by --max-walk-time always was: a
// warning naming the thread, exit status 1, JSON status ERROR_PARTIAL
// with the reason in x_errors, once per problem (issue 26.14). Without a
// cut the same dump is OK.
func TestTruncatedStackIsPartial(t *testing.T) {
	data, err := hostile.FrameChain(3, 400)
	if err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(t.TempDir(), "chain.dmp")
	if err := os.WriteFile(dump, data, 0o644); err != nil {
		t.Fatal(err)
	}
	type doc struct {
		Status string   `json:"status"`
		Errors []string `json:"x_errors"`
	}
	for _, tc := range []struct {
		args       []string
		wantStatus int
		wantJSON   string
		wantNotes  int // x_errors entries naming a cut stack
	}{
		{[]string{"--max-frames-total", "1000000"}, exitOK, "OK", 0},
		{[]string{"--max-frames-total", "100"}, exitDump, "ERROR_PARTIAL", 3},
		{[]string{"--max-walk-time", "1ns"}, exitDump, "ERROR_PARTIAL", 3},
	} {
		_, errOut, status := runCLI(append(tc.args, dump)...)
		if status != tc.wantStatus {
			t.Errorf("%q: exit %d, want %d\n%s", tc.args, status, tc.wantStatus, errOut)
		}
		if tc.wantNotes > 0 && !strings.Contains(errOut, "thread 0: ") {
			t.Errorf("%q: stderr does not name the cut stack:\n%s", tc.args, errOut)
		}
		out, _, status := runCLI(append(append([]string{"--json"}, tc.args...), dump)...)
		var d doc
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("%q --json: %v", tc.args, err)
		}
		notes := 0
		for _, e := range d.Errors {
			if strings.Contains(e, "cap of") || strings.Contains(e, "walk stopped") {
				notes++
			}
		}
		if status != tc.wantStatus || d.Status != tc.wantJSON || notes != tc.wantNotes || len(d.Errors) != tc.wantNotes {
			t.Errorf("%q --json: exit %d, status %q, x_errors %q; want %d, %q, %d entries", tc.args, status, d.Status, d.Errors,
				tc.wantStatus, tc.wantJSON, tc.wantNotes)
		}
	}
}
