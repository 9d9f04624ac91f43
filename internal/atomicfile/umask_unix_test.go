//go:build unix

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The file gets 0666 less the umask, as os.Create gives, not
// os.CreateTemp's 0600 (issue 28: a CI job could not publish --html).
func TestWriteFileModeFollowsUmask(t *testing.T) {
	for _, tc := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0o002, 0o664}, {0o077, 0o600}} {
		old := syscall.Umask(tc.umask)
		path := filepath.Join(t.TempDir(), "f")
		err := writeFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != tc.want {
			t.Errorf("umask %03o: mode %03o, want %03o", tc.umask, got, tc.want)
		}
	}
}
