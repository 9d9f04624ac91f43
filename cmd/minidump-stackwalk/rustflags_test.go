package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

func runArgs(args ...string) (status int, stdout, stderr string) {
	var o, e bytes.Buffer
	status = run(args, &o, &e)
	return status, o.String(), e.String()
}

func rustTestdata(t *testing.T, elem ...string) string {
	return filepath.Join(append([]string{corpus.Shared(t, "corpus", "rust-minidump", "testdata")}, elem...)...)
}

// Combinations of flags that make no sense are usage errors (exit 2) with a
// one-line explanation before the usage hint.
func TestRustFlagsUsageErrors(t *testing.T) {
	dump := rustTestdata(t, "test.dmp")
	// Output paths in a temp dir: nothing may be written, but should a
	// check let one through, it lands there.
	dir := t.TempDir()
	x, o, same := filepath.Join(dir, "x.json"), filepath.Join(dir, "o.json"), filepath.Join(dir, "same.json")
	for _, args := range [][]string{
		{"--json", "--human", dump},
		{"--json", "--cyborg", x, dump},
		{"--pretty", dump},
		{"--json", "--brief", dump},
		{"--json", "-m", dump},
		{"--json", "-s", dump},
		{"--cyborg", x, "-m", dump},
		{"--human", "-m", dump},
		{"--human", "-f", "machine", dump},
		{"--cyborg=", dump},
		{"--verbose=loud", dump},
		{"--features", "everything", dump},
		{"--json", "--output-file", o, "--log-file", o, dump},
		{"--json", "--output-file", same, "--cyborg", same, dump},
	} {
		status, stdout, stderr := runArgs(args...)
		if status != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, status, exitUsage)
		}
		if stdout != "" {
			t.Errorf("%q: wrote to stdout: %q", args, stdout)
		}
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if len(lines) < 1 || !strings.HasPrefix(lines[0], "minidump-stackwalk: ") || len(lines) > 2 {
			t.Errorf("%q: stderr %q, want one explanation line (and the usage hint)", args, stderr)
		}
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("a usage error wrote %d output files", len(files))
	}
}

func TestRustFlagsOutputs(t *testing.T) {
	dump := rustTestdata(t, "test.dmp")
	syms := rustTestdata(t, "symbols")
	dir := t.TempDir()

	// --json writes JSON to stdout; --output-file moves it to a file.
	status, jsonOut, stderr := runArgs("--json", dump, syms)
	if status != exitOK || !json.Valid([]byte(jsonOut)) {
		t.Fatalf("--json: exit %d, valid %v, stderr %s", status, json.Valid([]byte(jsonOut)), stderr)
	}
	outFile := filepath.Join(dir, "out.json")
	status, stdout, _ := runArgs("--json", "--output-file", outFile, dump, syms)
	if status != exitOK || stdout != "" {
		t.Errorf("--output-file: exit %d, stdout %q", status, stdout)
	}
	if data, err := os.ReadFile(outFile); err != nil || string(data) != jsonOut {
		t.Errorf("--output-file content differs from --json stdout (%v)", err)
	}

	// --output-file also takes Breakpad's formats.
	_, machine, _ := runArgs("-m", dump, syms)
	machineFile := filepath.Join(dir, "out.txt")
	if status, stdout, _ := runArgs("-m", "--output-file", machineFile, dump, syms); status != exitOK || stdout != "" {
		t.Errorf("-m --output-file: exit %d, stdout %q", status, stdout)
	}
	if data, err := os.ReadFile(machineFile); err != nil || string(data) != machine || !strings.HasPrefix(machine, "OS|") {
		t.Errorf("-m --output-file content differs from -m stdout (%v)", err)
	}

	// --symbols-path is the same as a positional symbol path.
	_, viaFlag, _ := runArgs("--json", "--symbols-path", syms, dump)
	if viaFlag != jsonOut {
		t.Errorf("--symbols-path output differs from the positional symbol path's")
	}

	// --human is the default output; --cyborg adds the JSON report in a file.
	_, human, _ := runArgs(dump, syms)
	status, humanFlag, _ := runArgs("--human", dump, syms)
	if status != exitOK || humanFlag != human || !strings.Contains(human, "Thread 0") {
		t.Errorf("--human: exit %d, equal to default %v", status, humanFlag == human)
	}
	cyborg := filepath.Join(dir, "cyborg.json")
	status, cyHuman, _ := runArgs("--cyborg", cyborg, dump, syms)
	if status != exitOK || cyHuman != human {
		t.Errorf("--cyborg: exit %d, human part equal %v", status, cyHuman == human)
	}
	if data, err := os.ReadFile(cyborg); err != nil || string(data) != jsonOut {
		t.Errorf("--cyborg JSON differs from --json (%v)", err)
	}

	// --verbose logs to stderr at the chosen level; off and the default are quiet.
	// It goes to run()'s stderr, never the process's own.
	var quiet, info, off, trace string
	process := captureStderr(t, func() {
		_, _, quiet = runArgs("--json", dump)
		_, _, info = runArgs("--json", "--verbose=info", dump)
		_, _, off = runArgs("--json", "--verbose=off", dump)
		_, _, trace = runArgs("--json", "--verbose=trace", dump, syms)
	})
	if quiet != "" || off != "" || !strings.Contains(info, "level=INFO") || strings.Contains(info, "level=DEBUG") ||
		!strings.Contains(trace, "level=DEBUG") {
		t.Errorf("--verbose: default %q, off %q, info %q, trace %q", quiet, off, info, trace)
	}
	if process != "" {
		t.Errorf("written to the process's stderr: %q", process)
	}

	logFile := filepath.Join(dir, "log.txt")
	if status, _, _ := runArgs("--json", "--verbose=debug", "--log-file", logFile, dump, syms); status != exitOK {
		t.Errorf("--log-file: exit %d", status)
	}
	if data, err := os.ReadFile(logFile); err != nil || !strings.Contains(string(data), "level=DEBUG") {
		t.Errorf("--log-file: %q, %v", data, err)
	}

	// Shell completion comes from cobra.
	status, script, _ := runArgs("completion", "bash")
	if status != exitOK || !strings.Contains(script, "bash completion") {
		t.Errorf("completion bash: exit %d, %.60q", status, script)
	}
}

// captureStderr returns what fn writes to the process's os.Stderr, which
// run() must never write to.
func captureStderr(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		var b bytes.Buffer
		b.ReadFrom(r)
		done <- b.String()
	}()
	fn()
	os.Stderr = saved
	w.Close()
	return <-done
}

// A PUBLIC record with a mangled name is demangled in the JSON report unless
// --no-demangle. Expected names from llvm-cxxfilt.
func TestRustFlagsDemangle(t *testing.T) {
	dir := t.TempDir()
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.SetCSDVersion("Linux 5.10.0 #1 SMP x86_64")
	b.AddModule("/usr/bin/app", 0x400000, 0x10000).SetBuildID([]byte{
		0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef})
	ctx := minidump.NewContext(minidump.ArchAMD64)
	ctx.SetIP(0x401010)
	ctx.SetSP(0x7000)
	ctx.Set("rbp", 0)
	stack := make([]byte, 64)
	binary.LittleEndian.PutUint64(stack[16:], 0x402010) // a return address into the second PUBLIC
	b.AddThread(7, ctx, 0x7000, stack)
	b.SetException(7, 11, 0)
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(dir, "app.dmp")
	if err := os.WriteFile(dump, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := minidump.Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	mods, _ := f.Modules()
	f.Close()
	if len(mods) != 1 {
		t.Fatalf("%d modules", len(mods))
	}
	id := mods[0].DebugID
	symDir := filepath.Join(dir, "syms", "app", id)
	if err := os.MkdirAll(symDir, 0o755); err != nil {
		t.Fatal(err)
	}
	sym := "MODULE Linux x86_64 " + id + " app\n" +
		"PUBLIC 1000 0 _ZN7testing8internal11CmpHelperEQIiiEENS_15AssertionResultEPKcS4_RKT_RKT0_\n" +
		"PUBLIC 2000 0 _RNvCs1234_7mycrate3foo\n"
	if err := os.WriteFile(filepath.Join(symDir, "app.sym"), []byte(sym), 0o644); err != nil {
		t.Fatal(err)
	}
	function := func(args ...string) string {
		t.Helper()
		status, out, stderr := runArgs(append(args, dump, filepath.Join(dir, "syms"))...)
		if status != exitOK {
			t.Fatalf("exit %d: %s", status, stderr)
		}
		var doc struct {
			Threads []struct {
				Frames []struct {
					Function *string `json:"function"`
				} `json:"frames"`
			} `json:"threads"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Threads) == 0 || len(doc.Threads[0].Frames) == 0 ||
			doc.Threads[0].Frames[0].Function == nil {
			t.Fatalf("no function in frame 0 (%v): %s", err, out)
		}
		return *doc.Threads[0].Frames[0].Function
	}
	if got, want := function("--json"), "testing::AssertionResult testing::internal::CmpHelperEQ<int, int>(char const*, char const*, int const&, int const&)"; got != want {
		t.Errorf("demangled: %q, want %q", got, want)
	}
	if got, want := function("--json", "--no-demangle"), "_ZN7testing8internal11CmpHelperEQIiiEENS_15AssertionResultEPKcS4_RKT_RKT0_"; got != want {
		t.Errorf("--no-demangle: %q, want %q", got, want)
	}
	// Breakpad's formats too, including -s's lists of possible instruction
	// pointers (the return address on the stack).
	for _, args := range [][]string{{"-s"}, {"-s", "--no-demangle"}} {
		_, out, _ := runArgs(append(args, dump, filepath.Join(dir, "syms"))...)
		demangled := strings.Contains(out, "mycrate::foo") && strings.Contains(out, "testing::internal::CmpHelperEQ<int, int>")
		mangled := strings.Contains(out, "_RNvCs1234_7mycrate3foo") && strings.Contains(out, "_ZN7testing8internal11CmpHelperEQ")
		if len(args) == 1 && (!demangled || mangled) || len(args) == 2 && (demangled || !mangled) {
			t.Errorf("%q: demangled names %v, mangled names %v:\n%s", args, demangled, mangled, out)
		}
	}
}

// A file that is not a minidump still gets a JSON document whose status
// says why, and exit status 1.
func TestRustFlagsUnreadableDump(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.dmp")
	if err := os.WriteFile(garbage, []byte("not a minidump at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		garbage:                          "ERROR_NO_MINIDUMP_HEADER",
		filepath.Join(dir, "absent.dmp"): "ERROR_MINIDUMP_NOT_FOUND",
	} {
		status, out, stderr := runArgs("--json", path)
		if status != exitDump || !strings.Contains(stderr, path) {
			t.Errorf("%s: exit %d, stderr %q", path, status, stderr)
		}
		var doc struct {
			Status  string `json:"status"`
			Threads []any  `json:"threads"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Status != want || doc.Threads == nil {
			t.Errorf("%s: status %q (want %q), threads %v, err %v", path, doc.Status, want, doc.Threads, err)
		}
		// Other outputs print nothing on stdout.
		if _, out, _ := runArgs(path); out != "" {
			t.Errorf("%s: human output %q", path, out)
		}
	}
}

// When a rust-minidump flag that does not change the format is given, the
// flag group prints the Breakpad formats itself (writeText): the output must
// be the same as without it, for every Breakpad output flag.
func TestRustFlagsKeepBreakpadOutput(t *testing.T) {
	dump := rustTestdata(t, "test.dmp")
	syms := rustTestdata(t, "symbols")
	for _, flags := range [][]string{{}, {"-m"}, {"-s"}, {"-c"}, {"-t", "1"}, {"-d"}, {"-b"}, {"-f", "machine"}, {"--breakpad-compat"}} {
		_, want, _ := runArgs(append(append([]string{}, flags...), dump, syms)...)
		extra := []string{"--verbose=off", "--human"}
		if len(flags) > 0 && (flags[0] == "-m" || flags[0] == "-f") {
			extra = extra[:1] // --human with -m is a usage error
		}
		status, got, _ := runArgs(append(append(extra, flags...), dump, syms)...)
		if status != exitOK || got != want || want == "" {
			t.Errorf("%q: exit %d; output with --verbose=off (--human) differs from without (%d vs %d bytes)", flags, status, len(got), len(want))
		}
	}
}
