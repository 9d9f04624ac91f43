package stackwalk

import (
	"os/exec"
	"strings"
	"testing"
)

// TestWalkersLinkNoTransport keeps symbol transport apart from the walk:
// the walkers, the processor and the printers read only symfile's types,
// so they must not link an HTTP client, TLS or a decompressor (issue 27).
// Symbol servers are package symsrv's, debuginfod's and the command's.
func TestWalkersLinkNoTransport(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list dependencies:", err)
	}
	out, err := exec.Command(goCmd, "list", "-deps", "./walker/...", "./processor", "./report").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{"net/http", "crypto/tls", "github.com/klauspost/compress", "github.com/ulikunitz/xz"}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("the walk links %s", dep)
			}
		}
	}
}
