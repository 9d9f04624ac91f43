package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "arm-crashdemo")
	if err := os.WriteFile(path, corpus.ReadZstd(t, "../../testdata/cores/arm-crashdemo.zst"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if rc := run([]string{path}, &out, &errOut); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut.String())
	}
	// MODULE as Google's dump_syms writes it for this file (the debug id
	// in testdata/symbols/crashdemo), then its exidx CFI.
	if !strings.HasPrefix(out.String(), "MODULE Linux arm 97C1D5E7CD3050B4FA08C2632E99C7BA0 arm-crashdemo\n") ||
		!strings.Contains(out.String(), "\nSTACK CFI INIT ") {
		t.Errorf("output:\n%.300s", out.String())
	}
	out.Reset()
	if rc := run([]string{"-i", "-n", "crashdemo", "-o", "Android", path}, &out, &errOut); rc != 0 ||
		out.String() != "MODULE Android arm 97C1D5E7CD3050B4FA08C2632E99C7BA0 crashdemo\nINFO CODE_ID E7D5C19730CDB450FA08C2632E99C7BAB6400CD6\n" {
		t.Errorf("-i -n -o: exit %d, output %q", rc, out.String())
	}
	out.Reset()
	if rc := run([]string{"-c", path}, &out, &errOut); rc != 0 || strings.Contains(out.String(), "STACK CFI") {
		t.Errorf("-c: exit %d, output has STACK CFI", rc)
	}
	for _, args := range [][]string{{}, {"-x", path}} {
		if rc := run(args, &out, &errOut); rc != 2 {
			t.Errorf("%q: exit %d, want 2", args, rc)
		}
	}
	errOut.Reset()
	if rc := run([]string{"main_test.go"}, &out, &errOut); rc != 1 || errOut.String() != "dump_syms: main_test.go: not an ELF, PE, PDB or Mach-O file\n" {
		t.Errorf("not ELF: exit %d, %q", rc, errOut.String())
	}
}

// dump_syms follows the other commands' flag conventions (issue 28.5):
// --help exits 0, long names beside Google's letters, --flag=value, a
// missing file or an unknown flag is a usage error (2) that says so.
func TestFlagConventions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "arm-crashdemo")
	if err := os.WriteFile(path, corpus.ReadZstd(t, "../../testdata/cores/arm-crashdemo.zst"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	for _, args := range [][]string{{"--help"}, {"-h"}} {
		out.Reset()
		if rc := run(args, &out, &errOut); rc != 0 || !strings.Contains(out.String(), "--breakpad-compat") {
			t.Errorf("%q: exit %d, output %q", args, rc, out.String())
		}
	}
	out.Reset()
	want := "MODULE Android arm 97C1D5E7CD3050B4FA08C2632E99C7BA0 crashdemo\n"
	if rc := run([]string{"--header-only", "--name=crashdemo", "--os", "Android", path}, &out, &errOut); rc != 0 ||
		!strings.HasPrefix(out.String(), want) {
		t.Errorf("long flags: exit %d, output %q", rc, out.String())
	}
	for _, args := range [][]string{{}, {"--no-such-flag", path}, {"-breakpad-compat", path}} {
		errOut.Reset()
		if rc := run(args, &out, &errOut); rc != 2 || !strings.Contains(errOut.String(), "dump_syms --help") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a pointer to --help", args, rc, errOut.String())
		}
	}
	errOut.Reset()
	if rc := run([]string{filepath.Join(t.TempDir(), "missing")}, &out, &errOut); rc != 1 || !strings.Contains(errOut.String(), "missing") {
		t.Errorf("missing file: exit %d, %q", rc, errOut.String())
	}
}

// TestRunDWARF: -d writes INLINE records for the C++ test program; a
// stripped binary with a debug directory gets its debug file's FUNC
// records; a debug directory without the file is an error naming it.
func TestRunDWARF(t *testing.T) {
	dir, debugDir := t.TempDir(), t.TempDir()
	cxx := filepath.Join(dir, "amd64-cxx")
	stripped := filepath.Join(dir, "prog-stripped")
	for path, src := range map[string]string{
		cxx:                                   "../../dumpsyms/testdata/amd64-cxx.zst",
		stripped:                              "../../elfsym/testdata/prog-stripped.zst",
		filepath.Join(debugDir, "prog.debug"): "../../elfsym/testdata/prog.debug.zst",
	} {
		if err := os.WriteFile(path, corpus.ReadZstd(t, src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	if rc := run([]string{"-c", "-d", cxx}, &out, &errOut); rc != 0 ||
		!strings.Contains(out.String(), "\nINLINE_ORIGIN 0 ") || !strings.Contains(out.String(), "\nFUNC 1810 30 0 checked(int)\n") {
		t.Errorf("-d: exit %d, %s, output:\n%.500s", rc, errOut.String(), out.String())
	}
	out.Reset()
	if rc := run([]string{"-c", stripped, debugDir}, &out, &errOut); rc != 0 || !strings.Contains(out.String(), "\nFUNC ") {
		t.Errorf("debug dir: exit %d, %s, output:\n%.500s", rc, errOut.String(), out.String())
	}
	errOut.Reset()
	if rc := run([]string{"-c", stripped, dir}, &out, &errOut); rc != 1 || !strings.Contains(errOut.String(), "prog.debug") {
		t.Errorf("no debug file: exit %d, %q", rc, errOut.String())
	}
}
