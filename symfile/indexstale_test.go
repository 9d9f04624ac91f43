package symfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A .sym edited in place with the same size and modification time is not
// served from its stale index (issue 26, item 11): the index is keyed to the
// change stamp and to content sampled across the whole file, not only to
// the first and last 64 KiB.
func TestIndexEditedInPlaceSameSizeAndMtime(t *testing.T) {
	var sym bytes.Buffer
	sym.WriteString("MODULE Linux x86_64 0123 app\n")
	for i := range 20000 { // about 700 KiB: the edit is far from head and tail
		fmt.Fprintf(&sym, "FUNC %x 10 0 function_%06d\n", 0x1000+i*0x10, i)
	}
	path := filepath.Join(t.TempDir(), "app.sym")
	if err := os.WriteFile(path, sym.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	index := NewIndexDir(t.TempDir(), func(err error) { t.Error(err) })
	lookup := func() string {
		f, err := index.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		s, _ := f.Lookup(0x1000 + 10001*0x10)
		return s.Name
	}
	if got := lookup(); got != "function_010001" {
		t.Fatalf("before the edit: %q", got)
	}
	if got := lookup(); got != "function_010001" { // from the index now
		t.Fatalf("from the index: %q", got)
	}
	// The same size, but the records after the first edit move: an index
	// made before points the next function at the wrong bytes.
	edited := bytes.Replace(sym.Bytes(), []byte("function_010000"), []byte("fn_010000"), 1)
	edited = bytes.Replace(edited, []byte("function_010001"), []byte("function_010001_moved"), 1)
	fh, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteAt(edited, 0); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if got := lookup(); got != "function_010001_moved" {
		t.Errorf("after an edit in place keeping size and mtime: %q, want function_010001_moved (a stale index)", got)
	}
}

// The content samples alone tell the edit apart, where the system gives no
// change stamp (the file's stamp is the same here: only the content moved).
func TestFileIdentitySamplesTheMiddle(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 50000) // 800 KB
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	id := func() identity {
		fh, st, err := openRegular(path)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		got, err := identityOf(fh, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	a := id()
	if b := id(); a != b {
		t.Fatal("identity not stable")
	}
	// Where the samples fall: between head and tail, evenly.
	mid := int64(len(data)) - 2*identityBytes
	off := identityBytes + mid*int64(identitySamples/2)/identitySamples
	fh, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteAt([]byte("X"), off+1); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	if b := id(); a.hash == b.hash {
		t.Error("an edit in the middle left the identity's hash unchanged")
	}
}
