//go:build unix

package symfile

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO where a symbol file should be is refused without opening it (an
// open would block until something writes to it), plain or compressed,
// with and without the index.
func TestFIFOSymbolFileRefused(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"app.sym", "app.sym.gz"} {
		path := filepath.Join(dir, name)
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		if _, err := testOpen(path); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("testOpen(%s): %v", name, err)
		}
		index := testIndexDir(t.TempDir(), func(error) {})
		if _, err := index.Open(path); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("IndexDir.Open(%s): %v", name, err)
		}
	}
}
