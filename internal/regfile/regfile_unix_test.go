//go:build unix

package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO, a directory and /dev/null are refused at once; a regular file and
// a link to one are opened.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("MODULE x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(plain, link); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, p := range []string{fifo, dir, os.DevNull} {
			if fh, _, err := Open(p); !errors.Is(err, ErrNotRegular) {
				t.Errorf("Open(%s) = %v, want ErrNotRegular", p, err)
				if fh != nil {
					fh.Close()
				}
			}
		}
		for _, p := range []string{plain, link} {
			fh, st, err := Open(p)
			if err != nil || st.Size() != 9 {
				t.Errorf("Open(%s) = %v, %v", p, st, err)
				continue
			}
			buf := make([]byte, 9)
			if _, err := fh.Read(buf); err != nil || string(buf) != "MODULE x\n" {
				t.Errorf("read %q, %v", buf, err)
			}
			fh.Close()
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Open blocked")
	}
}
