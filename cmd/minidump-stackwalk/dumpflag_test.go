package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
)

// --dump prints what Breakpad's minidump_dump prints, to stdout or
// --output-file, ignoring symbol paths.
func TestDumpFlag(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "arm-threads.dmp")
	out, errOut, status := runCLI("--dump", dump, t.TempDir())
	if status != exitOK || errOut != "" {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	if bin, ok := oracle.Lookup(oracle.Dump); ok {
		want, _ := exec.Command(bin, dump).Output() // exit 1: no misc info stream
		if out != string(want) {
			t.Errorf("--dump differs from minidump_dump (%d bytes, want %d)", len(out), len(want))
		}
	} else if !strings.HasPrefix(out, "MDRawHeader\n") || !strings.Contains(out, "MDRawContextARM\n") {
		t.Errorf("--dump output lacks the header or the ARM context:\n%.300s", out)
	}
	file := filepath.Join(t.TempDir(), "dump.txt")
	if o, e, status := runCLI("--dump", "--output-file", file, dump); status != exitOK || o != "" || e != "" {
		t.Fatalf("--output-file: status %d, stdout %d bytes, stderr %q", status, len(o), e)
	}
	if b, err := os.ReadFile(file); err != nil || !bytes.Equal(b, []byte(out)) {
		t.Errorf("--output-file holds %d bytes (%v), stdout had %d", len(b), err, len(out))
	}
}

// --dump reads a compressed dump, and one from standard input.
func TestDumpFlagInputs(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "x86-abort.dmp")
	want, _, status := runCLI("--dump", dump)
	if status != exitOK {
		t.Fatalf("status %d", status)
	}
	raw, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	gzPath := filepath.Join(t.TempDir(), "x.dmp.gz")
	if err := os.WriteFile(gzPath, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, status := runCLI("--dump", gzPath); status != exitOK || out != want {
		t.Errorf("gzip: status %d, stderr %q, output equal: %v", status, errOut, out == want)
	}
}

func TestDumpFlagErrors(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "arm-threads.dmp")
	for _, args := range [][]string{
		{"--dump", "-m", dump},
		{"--dump", "--json", dump},
		{"--dump", "-b", dump},
		{"--dump", "-t", "1", dump},
		{"--dump", "--human", dump},
	} {
		out, errOut, status := runCLI(args...)
		if status != exitUsage || out != "" || !strings.Contains(errOut, "--dump prints the dump's raw streams") {
			t.Errorf("%q: status %d, stdout %q, stderr %q", args, status, out, errOut)
		}
	}
	text := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(text, []byte("not a minidump\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, status := runCLI("--dump", text)
	if status != exitDump || out != "" || !strings.Contains(errOut, text) {
		t.Errorf("not a minidump: status %d, stdout %q, stderr %q", status, out, errOut)
	}
}
