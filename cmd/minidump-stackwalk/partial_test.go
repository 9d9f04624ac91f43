package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Stream types broken by partialDump.
const (
	streamThreadList = 3
	streamModuleList = 4
	streamException  = 6
	streamSystemInfo = 7
)

// partialDump writes a Linux amd64 dump of two threads whose frame pointer
// chains lead from 0x400100 to 0x401234 in /usr/bin/good, and breaks it:
// breakName puts an unpaired UTF-16 surrogate in the name of the second
// module, /usr/lib/xbroken.so; a non-zero breakStream makes that stream's
// directory entry claim more bytes than the file has.
func partialDump(t *testing.T, breakName bool, breakStream uint32) string {
	t.Helper()
	const goodBase = 0x400000
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	for i, stackBase := range []uint64{0x7ffd0000, 0x7ffe0000} {
		stack := make([]byte, 256)
		// A frame record at sp+0x20: the caller's frame pointer, the return address.
		binary.LittleEndian.PutUint64(stack[0x20:], stackBase+0x80)
		binary.LittleEndian.PutUint64(stack[0x28:], goodBase+0x1234)
		ctx := minidump.NewContext(minidump.ArchAMD64)
		ctx.SetIP(goodBase + 0x100)
		ctx.SetSP(stackBase)
		ctx.Set("rbp", stackBase+0x20)
		b.AddThread(0x10+uint32(i), ctx, stackBase, stack)
	}
	b.SetException(0x10, 11, 0x1234) // SIGSEGV
	b.AddModule("/usr/bin/good", goodBase, 0x10000).SetBuildID([]byte("0123456789abcdef"))
	b.AddModule("/usr/lib/xbroken.so", 0x7f0000000000, 0x10000).SetBuildID([]byte("fedcba9876543210"))
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if breakName {
		name := utf16.Encode([]rune("/usr/lib/xbroken.so"))
		enc := make([]byte, 2*len(name))
		for i, u := range name {
			binary.LittleEndian.PutUint16(enc[2*i:], u)
		}
		at := bytes.Index(data, enc)
		if at < 0 {
			t.Fatal("module name not found in the dump")
		}
		binary.LittleEndian.PutUint16(data[at+2*len("/usr/lib/"):], 0xd800) // the 'x'
	}
	if breakStream != 0 {
		le := binary.LittleEndian
		n, dirRVA := le.Uint32(data[8:]), le.Uint32(data[12:])
		found := false
		for i := uint32(0); i < n; i++ {
			if e := data[dirRVA+12*i:]; le.Uint32(e) == breakStream {
				le.PutUint32(e[4:], uint32(len(data)))
				found = true
			}
		}
		if !found {
			t.Fatalf("no stream %d", breakStream)
		}
	}
	path := filepath.Join(t.TempDir(), "partial.dmp")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A broken essential stream leaves the rest of the report: the OS, CPU,
// crash reason and the threads walked without that stream, as Breakpad
// prints them. The problem is named on stderr with the file, the stream and
// the offset, and the exit status is 1 (doc.go: "what could be read is
// still printed"). With --breakpad-compat stdout equals Breakpad's
// minidump_stackwalk on the same bytes, which exits 0 but for a broken
// thread list. There Breakpad fails and prints nothing; we print the header
// we could read (a deliberate difference: the thread list is not needed to
// read the OS, CPU and crash).
func TestBrokenEssentialStreamsStayPartial(t *testing.T) {
	bin, haveOracle := oracle.Lookup(oracle.Stackwalk)
	if !haveOracle {
		t.Log("no Breakpad minidump_stackwalk: our outputs are checked, not compared")
	}
	header := []string{"Operating system: Linux", "CPU: amd64", "1 CPU"}
	crash := []string{"Crash reason:  SIGSEGV", "Crash address: 0x1234"}
	threads := []string{"Thread 0 (crashed)", "Thread 1\n", "Found by: previous frame's frame pointer"}
	// Without the exception stream no thread crashed; without the system
	// info the crash reason has no OS to be named in.
	noCrash := []string{"No crash", "Thread 0\n", "Thread 1\n", "Found by: previous frame's frame pointer"}
	rawCrash := []string{"Crash reason:  0x0000000b / 0x00000000", "Crash address: 0x1234"}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	// A symbol path without symbols, for us and Breakpad alike: without any
	// symbol path Breakpad still warns of modules without symbols, which
	// we do not (a difference outside this test's subject).
	symbols := t.TempDir()
	for _, c := range []struct {
		name        string
		breakName   bool
		breakStream uint32
		stderr      string   // names the stream
		want        []string // in our default output
		wantCompat  []string // in --breakpad-compat output
		oracleFails bool     // Breakpad fails and prints nothing
	}{
		{"unpaired UTF-16 module name", true, 0, "module list: minidump: MD_MODULE_LIST_STREAM at offset",
			// Our default keeps the readable modules: frames in "good".
			cat(header, crash, threads, []string{" 0  good + 0x100", " 1  good + 0x1234"}),
			// Breakpad drops the whole list: frames are bare addresses.
			cat(header, crash, threads, []string{" 0  0x400100", " 1  0x401234"}), false},
		{"module list out of bounds", false, streamModuleList, "module list: minidump: MD_MODULE_LIST_STREAM at offset",
			cat(header, crash, threads, []string{" 0  0x400100"}), cat(header, crash, threads, []string{" 0  0x400100"}), false},
		{"exception out of bounds", false, streamException, "exception: minidump: MD_EXCEPTION_STREAM at offset",
			cat(header, noCrash), cat(header, noCrash), false},
		{"system info out of bounds", false, streamSystemInfo, "system info: minidump: MD_SYSTEM_INFO_STREAM at offset",
			cat(rawCrash, threads), cat(rawCrash, threads), false},
		{"thread list out of bounds", false, streamThreadList, "thread list: minidump: MD_THREAD_LIST_STREAM at offset",
			cat(header, crash), cat(header, crash), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := partialDump(t, c.breakName, c.breakStream)
			checkPartialJSON(t, path, c.stderr, c.oracleFails)
			for _, compat := range []bool{false, true} {
				for _, machine := range []bool{false, true} {
					var args []string
					if compat {
						args = append(args, "--breakpad-compat")
					}
					if machine {
						args = append(args, "-m")
					}
					out, errOut, status := runCLI(append(args, path, symbols)...)
					if status != exitDump {
						t.Errorf("%q: exit status %d, want %d", args, status, exitDump)
					}
					if !strings.Contains(errOut, path+": "+c.stderr) {
						t.Errorf("%q: stderr does not name the file, stream and offset (%q):\n%s", args, c.stderr, errOut)
					}
					want := c.want
					if compat {
						want = c.wantCompat
					}
					for _, w := range want {
						if !machine && !strings.Contains(out, w) {
							t.Errorf("%q: output lacks %q:\n%s", args, w, out)
						}
					}
					if !compat || !haveOracle {
						continue
					}
					cmd := exec.Command(bin, append(args[1:], path, symbols)...)
					var bpOut bytes.Buffer
					cmd.Stdout = &bpOut
					err := cmd.Run()
					if c.oracleFails {
						if err == nil || bpOut.Len() != 0 {
							t.Errorf("%q: Breakpad exit %v, output %q; the test expects it to fail", args, err, bpOut.String())
						}
						continue
					}
					if err != nil {
						t.Errorf("%q: Breakpad: %v", args, err)
					}
					if diff := cmp.Diff(bpOut.String(), out); diff != "" {
						t.Errorf("%q: differs from Breakpad's (-Breakpad +ours):\n%s", args, diff)
					}
				}
			}
		})
	}
}

// checkPartialJSON checks the --json report of a dump with a broken
// essential stream: the threads that could be read, the problem in
// x_errors, and the status ERROR_NO_THREAD_LIST when the thread list is
// what is broken.
func checkPartialJSON(t *testing.T, path, problem string, noThreads bool) {
	t.Helper()
	out, _, status := runCLI("--json", path)
	if status != exitDump {
		t.Errorf("--json: exit status %d, want %d", status, exitDump)
	}
	var doc struct {
		Status      string
		ThreadCount int                 `json:"thread_count"`
		Errors      []string            `json:"x_errors"`
		SystemInfo  struct{ OS string } `json:"system_info"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	wantStatus, wantThreads := "ERROR_PARTIAL", 2 // exit status 1: not "OK" (issue 28.1)
	if noThreads {
		wantStatus, wantThreads = "ERROR_NO_THREAD_LIST", 0
	}
	if doc.Status != wantStatus || doc.ThreadCount != wantThreads {
		t.Errorf("--json: status %q, %d threads; want %q, %d", doc.Status, doc.ThreadCount, wantStatus, wantThreads)
	}
	if !slices.ContainsFunc(doc.Errors, func(e string) bool { return strings.Contains(e, problem) }) {
		t.Errorf("--json: x_errors %q lack %q", doc.Errors, problem)
	}
	// One entry per problem: the stream's error once, not once per list
	// of the state that holds it.
	for i, e := range doc.Errors {
		for _, f := range doc.Errors[i+1:] {
			if strings.HasSuffix(e, f) || strings.HasSuffix(f, e) {
				t.Errorf("--json: x_errors repeat a problem: %q and %q", e, f)
			}
		}
	}
}
