package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// A dump or core where a symbol path is expected is a usage error that
// points to batch; a .sym file or a store directory there is not.
func TestDumpAsSymbolPath(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	core := unpackCore(t, "amd64-fp")
	for _, second := range []string{corpus.Testdata(t, "dumps", "x86-fp.dmp"), core} {
		out, errOut, status := runCLI(dump, second)
		if status != exitUsage || out != "" || !strings.Contains(errOut, second) || !strings.Contains(errOut, "minidump-stackwalk batch") {
			t.Errorf("%s as a symbol path: status %d, stdout %q, stderr %q; want a usage error naming it and batch", second, status, out, errOut)
		}
	}
	symbols := corpus.Testdata(t, "symbols")
	syms, _ := filepath.Glob(filepath.Join(symbols, "crashdemo", "*", "crashdemo.sym"))
	if len(syms) == 0 {
		t.Fatal("no crashdemo.sym in testdata/symbols")
	}
	for _, path := range []string{symbols, syms[0]} {
		if _, errOut, status := runCLI("-b", dump, path); status != exitOK || errOut != "" {
			t.Errorf("symbol path %s: status %d, stderr %q", path, status, errOut)
		}
	}
}

// A local symbol path that does not exist is walked without, with a
// warning naming it; the exit status is unchanged.
func TestMissingSymbolPathWarns(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	missing := filepath.Join(t.TempDir(), "no-such-store")
	want, _, _ := runCLI("-b", dump, corpus.Testdata(t, "symbols"))
	out, errOut, status := runCLI("-b", dump, missing, corpus.Testdata(t, "symbols"))
	if status != exitOK || out != want || !strings.Contains(errOut, "warning: symbol path "+missing+" does not exist") {
		t.Errorf("status %d, stderr %q, output differs: %v", status, errOut, out != want)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("the missing symbol path was created")
	}
}

// Flags that contradict each other are usage errors.
func TestConflictingFlags(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-threads.dmp")
	for _, args := range [][]string{
		{"-c", "-t", "1", dump},
		{"-t", "1", "-c", dump},
	} {
		if out, errOut, status := runCLI(args...); status != exitUsage || out != "" || !strings.Contains(errOut, "contradict") {
			t.Errorf("%q: status %d, stdout %q, stderr %q", args, status, out, errOut)
		}
	}
}

// -t N past the dump's last thread is a usage error naming the range;
// Breakpad prints the crashed thread alone and exits 0 (the conformance
// corpus's flags/*.t1.txt), which --breakpad-compat keeps.
func TestThreadOutOfRange(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-threads.dmp")
	if _, errOut, status := runCLI("-t", "3", dump); status != exitOK {
		t.Fatalf("-t 3 of 4 threads: status %d, %s", status, errOut)
	}
	out, errOut, status := runCLI("-t", "4", dump)
	if status != exitUsage || out != "" || !strings.Contains(errOut, "has 4 threads (0 to 3)") {
		t.Errorf("-t 4: status %d, stdout %q, stderr %q", status, out, errOut)
	}
	// --breakpad-compat prints what Breakpad prints: the crashed thread.
	if out, errOut, status := runCLI("--breakpad-compat", "-t", "4", dump); status != exitOK || !strings.Contains(out, "(crashed)") {
		t.Errorf("--breakpad-compat -t 4: status %d, stderr %q", status, errOut)
	}
}

// --debuginfo-path must name a directory; a store with the module's .sym
// is asked first, so its frames are unchanged by ELF files beside it (-m:
// the same frames; the program's .ARM.exidx now finds the last two by
// CFI, with their registers, where the .sym alone scans).
func TestDebuginfoPath(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "arm-fp.dmp")
	symbols := corpus.Testdata(t, "symbols")
	missing := filepath.Join(t.TempDir(), "missing")
	if _, errOut, status := runCLI("--debuginfo-path", missing, dump); status != exitUsage || !strings.Contains(errOut, missing) {
		t.Errorf("missing --debuginfo-path: status %d, stderr %q", status, errOut)
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "crashdemo")
	if err := os.WriteFile(prog, corpus.ReadZstd(t, corpus.Testdata(t, "cores", "arm-crashdemo.zst")), 0o644); err != nil {
		t.Fatal(err)
	}
	want, _, _ := runCLI("-m", dump, symbols)
	if got, errOut, status := runCLI("-m", "--debuginfo-path", dir, dump, symbols); status != exitOK || got != want {
		t.Errorf("with the .sym and --debuginfo-path: status %d, stderr %q, output differs: %v", status, errOut, got != want)
	}
}

// --verbose=debug names every symbol file path tried for a module and what
// came of it; without it, none is logged.
func TestVerboseDebugNamesSymbolFiles(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	symbols := corpus.Testdata(t, "symbols")
	missing := filepath.Join(t.TempDir(), "missing")
	syms, _ := filepath.Glob(filepath.Join(symbols, "crashdemo", "*", "crashdemo.sym"))
	logFile := filepath.Join(t.TempDir(), "log")
	_, errOut, status := runCLI("--verbose=debug", "--log-file", logFile, "-b", dump, missing, symbols)
	if status != exitOK {
		t.Fatalf("status %d: %s", status, errOut)
	}
	logged, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	errOut = string(logged)
	for _, want := range []string{
		"tried=" + missing + ` outcome="stat ` + missing,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	used := false
	for _, p := range syms {
		used = used || strings.Contains(errOut, "tried="+p+" outcome=used")
	}
	if !used {
		t.Errorf("stderr names no crashdemo.sym as used:\n%s", errOut)
	}
	if _, _, status := runCLI("--verbose=info", "--log-file", logFile, "-b", dump, symbols); status != exitOK {
		t.Fatalf("--verbose=info: status %d", status)
	}
	if logged, _ := os.ReadFile(logFile); strings.Contains(string(logged), "tried=") {
		t.Errorf("--verbose=info logs symbol tries:\n%s", logged)
	}
}

// A symbol file or a directory given where the dump goes fails (exit 1)
// with a line saying what to give instead (issue 28.1).
func TestNotADumpHints(t *testing.T) {
	syms := corpus.Testdata(t, "symbols")
	sym := filepath.Join(syms, "crashdemo", "49560879E67F118807D2C11D1A997E730", "crashdemo.sym")
	for path, want := range map[string]string{
		sym:  "is a symbol file: give the dump first, then symbol files and directories (or --symbols-path)",
		syms: "run `minidump-stackwalk batch " + syms + "`; a symbol directory goes after the dump or to --symbols-path",
	} {
		_, stderr, status := runCLI(path)
		if status != exitDump || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant 1 and %q", path, status, stderr, want)
		}
	}
}
