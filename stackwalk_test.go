package stackwalk_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	stackwalk "github.com/minidump-stackwalk/minidump-stackwalk"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/report"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
)

// Open tells the three kinds of input apart by their content, not their
// names, and the processed core walks as the minidump core2md made of the
// same core (testdata/dumps/amd64-fp.dmp).
func TestOpenKinds(t *testing.T) {
	dir := t.TempDir()
	core := filepath.Join(dir, "crash") // no telling extension
	if err := os.WriteFile(core, corpus.TestdataCore(t, "amd64-fp"), 0o600); err != nil {
		t.Fatal(err)
	}
	brief := func(path string, want stackwalk.Kind) string {
		t.Helper()
		d, err := stackwalk.Open(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		defer d.Close()
		if d.Kind != want {
			t.Errorf("%s: kind %v, want %v", path, d.Kind, want)
		}
		st, err := d.Process(symcompress.NewDirSupplier(corpus.Testdata(t, "symbols")), processor.Options{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var b bytes.Buffer
		if err := report.WriteBrief(&b, st); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	fromCore := brief(core, stackwalk.KindCore)
	fromDump := brief(corpus.Testdata(t, "dumps", "amd64-fp.dmp"), stackwalk.KindMinidump)
	if fromCore != fromDump || len(fromDump) == 0 {
		t.Errorf("core:\n%s\ndump:\n%s", fromCore, fromDump)
	}

	micro := filepath.Join(corpus.Shared(t, "corpus", "breakpad", "microdumps"), "microdump-arm64.dmp")
	if b := brief(micro, stackwalk.KindMicrodump); !bytes.Contains([]byte(b), []byte("Thread 0 (crashed)")) {
		t.Errorf("microdump: %q", b)
	}
}

// Files that are no dump give the reader's error: a missing file the
// operating system's, anything else the minidump reader's.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := stackwalk.Open(filepath.Join(dir, "absent.dmp")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	for name, data := range map[string][]byte{
		"empty":        nil,
		"text":         []byte("not a dump at all, just some words of text\n"),
		"short header": []byte("MDMP\x93\xa7"),
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := stackwalk.Open(path)
		var fe *minidump.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a *minidump.FormatError", name, err)
		}
	}
}
