//go:build unix

package symfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
		index := testIndexDir(t, t.TempDir(), func(error) {})
		if _, err := index.Open(path); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("IndexDir.Open(%s): %v", name, err)
		}
	}
}

// A FIFO planted in the index directory where an index is looked for does
// not block the run (it used to: opened before the regular-file check); the
// symbol file is indexed in memory and served right (issue 26, item 10).
func TestFIFOInIndexDirIgnored(t *testing.T) {
	dir := t.TempDir()
	sym := filepath.Join(dir, "app.sym")
	if err := os.WriteFile(sym, []byte("MODULE Linux x86_64 0123 app\nFUNC 1000 10 0 main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(sym)
	idxDir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(idxDir, indexKey(abs)+".idx"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var warned []error
	done := make(chan struct{})
	var f *File
	var err error
	go func() {
		defer close(done)
		f, err = NewIndexDir(idxDir, func(e error) { warned = append(warned, e) }).Open(sym)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("IndexDir.Open blocked on a FIFO in the index directory")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if s, ok := f.Lookup(0x1004); !ok || s.Name != "main" {
		t.Errorf("Lookup = %+v, %v; want main", s, ok)
	}
	if len(warned) == 0 || !strings.Contains(warned[0].Error(), "not a regular file") {
		t.Errorf("warnings %v: want one saying the index is not a regular file", warned)
	}
}
