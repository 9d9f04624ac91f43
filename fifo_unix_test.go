//go:build unix

package stackwalk_test

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/machofile"
	"github.com/minidump-stackwalk/minidump-stackwalk/pdb"
	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
)

// A FIFO planted where a debug file is looked for (a PDB, a PE image, a
// Mach-O file) is refused at once: opening it for reading would block
// until a writer came (issue 26, item 10, for the Windows and macOS
// readers).
func TestDebugFileReadersRefuseFIFOs(t *testing.T) {
	dir := t.TempDir()
	openers := map[string]func(string) error{
		"crash.pdb": func(p string) error { _, err := pdb.OpenFile(p); return err },
		"crash.exe": func(p string) error { _, err := pe.Open(p); return err },
		"crash":     func(p string) error { _, err := machofile.OpenSlices(p); return err },
	}
	for name, open := range openers {
		path := filepath.Join(dir, name)
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() { done <- open(path) }()
		select {
		case err := <-done:
			if !errors.Is(err, regfile.ErrNotRegular) {
				t.Errorf("%s: error %v, want one wrapping %v", name, err, regfile.ErrNotRegular)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: opening a FIFO blocked", name)
		}
	}
}
