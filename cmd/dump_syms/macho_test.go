package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

const symbolicCrash = "../../../shared/corpus/symbolic/macos/crash"

// TestMachO: a binary is read with its dSYM beside it, the dSYM alone
// gives the same records without STACK CFI, -arch refuses what the file
// does not hold, and the MODULE line is Breakpad's (crash.sym).
func TestMachO(t *testing.T) {
	if _, err := os.Stat(symbolicCrash); err != nil {
		t.Skipf("../shared is absent: %v", err)
	}
	want, err := os.ReadFile(symbolicCrash + ".sym")
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if rc := run([]string{"--breakpad-compat", symbolicCrash}, &out, &errOut); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut.String())
	}
	wantFirst := strings.SplitN(string(want), "\n", 2)[0]
	if first := strings.SplitN(out.String(), "\n", 2)[0]; first != wantFirst {
		t.Errorf("MODULE line %q, Breakpad's %q", first, wantFirst)
	}
	if n, wn := strings.Count(out.String(), "\nFUNC "), strings.Count(string(want), "\nFUNC "); n != wn {
		t.Errorf("%d FUNC records (the dSYM not read?), Breakpad %d", n, wn)
	}
	var alone bytes.Buffer
	if rc := run([]string{"--breakpad-compat", symbolicCrash + ".dSYM"}, &alone, &errOut); rc != 0 {
		t.Fatalf("dSYM alone: exit %d: %s", rc, errOut.String())
	}
	var noCFI strings.Builder
	for _, l := range strings.SplitAfter(out.String(), "\n") {
		if !strings.HasPrefix(l, "STACK ") {
			noCFI.WriteString(l)
		}
	}
	if alone.String() != noCFI.String() {
		t.Errorf("the dSYM alone differs from the binary's records without STACK CFI")
	}
	errOut.Reset()
	if rc := run([]string{"--arch", "arm64", symbolicCrash}, &out, &errOut); rc != 1 || !strings.Contains(errOut.String(), "no architecture arm64 (the file has x86_64)") {
		t.Errorf("-arch arm64: exit %d, %q", rc, errOut.String())
	}
}
