package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

func runCLI(args ...string) (stdout, stderr string, status int) {
	var o, e bytes.Buffer
	status = run(args, &o, &e)
	return o.String(), e.String(), status
}

func TestUsageErrors(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	for _, args := range [][]string{
		{},                       // no minidump
		{"-x", dump},             // unknown flag
		{"-f", "xml", dump},      // bad format
		{"-t", "-3", dump},       // bad thread
		{"-t", "one", dump},      // not a number
		{"--no-such-flag", dump}, // unknown long flag
	} {
		out, errOut, status := runCLI(args...)
		if status != exitUsage {
			t.Errorf("%q: status %d, want %d", args, status, exitUsage)
		}
		if out != "" || !strings.Contains(errOut, "minidump-stackwalk:") {
			t.Errorf("%q: stdout %q, stderr %q", args, out, errOut)
		}
	}
	out, _, status := runCLI("--help")
	if status != exitOK || !strings.Contains(out, "minidump-stackwalk [flags] <minidump> [symbol-path ...]") {
		t.Errorf("--help: status %d, output %q", status, out)
	}
}

func TestUnreadableDump(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("not a minidump\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "missing.dmp"), text} {
		out, errOut, status := runCLI(path)
		if status != exitDump {
			t.Errorf("%s: status %d, want %d", path, status, exitDump)
		}
		if out != "" || !strings.Contains(errOut, path) {
			t.Errorf("%s: stdout %q, stderr %q (want the file named)", path, out, errOut)
		}
	}
}

// A dump whose module list is broken still prints everything else, names
// the problem and its offset on stderr, and exits 1.
func TestBrokenStreamPrintsTheRest(t *testing.T) {
	data, err := os.ReadFile(corpus.Testdata(t, "dumps", "amd64-fp.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	n, dirRVA := le.Uint32(data[8:]), le.Uint32(data[12:])
	found := false
	for i := uint32(0); i < n; i++ {
		e := data[dirRVA+12*i:]
		if le.Uint32(e) == 4 { // MD_MODULE_LIST_STREAM: claim more bytes than the file has
			le.PutUint32(e[4:], uint32(len(data)))
			found = true
		}
	}
	if !found {
		t.Fatal("no module list in amd64-fp.dmp")
	}
	path := filepath.Join(t.TempDir(), "broken-modules.dmp")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, status := runCLI(path, corpus.Testdata(t, "symbols"))
	if status != exitDump {
		t.Errorf("status %d, want %d", status, exitDump)
	}
	for _, want := range []string{"Operating system: Linux", "Crash reason:  SIGSEGV", "Thread 0 (crashed)", "Found by: given as instruction pointer in context"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "module list") || !strings.Contains(errOut, "offset") || !strings.Contains(errOut, path) {
		t.Errorf("stderr does not name the file, stream and offset: %q", errOut)
	}
}

// Every truncation of a real dump is handled without a panic: exit 0 with
// output, or exit 1 with a message.
func TestTruncatedDumps(t *testing.T) {
	data, err := os.ReadFile(corpus.Testdata(t, "dumps", "amd64-threads.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	step := max(len(data)/97, 1)
	for size := 0; size < len(data); size += step {
		path := filepath.Join(dir, "cut.dmp")
		if err := os.WriteFile(path, data[:size], 0o644); err != nil {
			t.Fatal(err)
		}
		for _, flags := range [][]string{nil, {"-m"}, {"-s"}, {"-d"}, {"-b"}} {
			_, errOut, status := runCLI(append(flags, path)...)
			switch {
			case status == exitDump && errOut == "":
				t.Errorf("size %d %v: exit 1 without a message", size, flags)
			case status != exitOK && status != exitDump:
				t.Errorf("size %d %v: status %d", size, flags, status)
			}
		}
	}
}

// FuzzCLI feeds arbitrary bytes to the command as a minidump, with the
// repository's symbols, in several output modes: it must never panic and must
// exit 0, or 1 with a message.
func FuzzCLI(f *testing.F) {
	dumps, _ := filepath.Glob(corpus.Testdata(f, "dumps", "*.dmp"))
	for _, d := range dumps {
		if data, err := os.ReadFile(d); err == nil {
			f.Add(data)
		}
	}
	syms := corpus.Testdata(f, "symbols")
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.dmp")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// Symbols only for -s: loading them dominates the time of a run.
		for _, args := range [][]string{{"-s", path, syms}, {"-m", path}, {"-d", path}, {"-b", path}} {
			_, errOut, status := runCLI(args...)
			if status != exitOK && (status != exitDump || errOut == "") {
				t.Errorf("%v: status %d, stderr %q", args[0], status, errOut)
			}
		}
	})
}
