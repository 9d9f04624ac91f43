package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
)

// The frame line variants of -m and -b, as in Breakpad's outputs:
// breakpad/expected/minidump2.machine.txt (function with a source line,
// PUBLIC symbol), linux_inline.machine.txt (module without symbols),
// breakpad-generated/stress/expected/linux-amd64-docker-live.machine.txt
// (no module).
func TestMachineAndBrief(t *testing.T) {
	app := &processor.Module{CodeFile: `C:\test_app.exe`, DebugFile: `C:\test_app.pdb`,
		DebugID: "5A9832E5287241C1838ED98914E9B7FF1", Base: 0x400000, Size: 0x2d000}
	k32 := &processor.Module{CodeFile: `C:\WINDOWS\system32\kernel32.dll`, Version: "5.1.2600.2945",
		DebugFile: "kernel32.pdb", DebugID: "BCE8785C57B44245A669896B6A19B9542", Base: 0x7c800000, Size: 0xf4000}
	st := newState("x86", true, app, k32)
	st.System = &processor.SystemInfo{OS: "Windows NT", OSVersion: "5.1.2600 Service Pack 2", CPU: "x86",
		CPUInfo: "GenuineIntel family 6 model 13 stepping 8", CPUCount: 1}
	st.Crashed, st.CrashReason, st.CrashAddress = true, "EXCEPTION_ACCESS_VIOLATION_WRITE", 0x45
	// Frames without registers: each prints its Instruction.
	withFrames(st, &processor.Frame{Instruction: 0x1007ffe64f79898})
	withFrames(st,
		&processor.Frame{Instruction: 0x0040429e, Module: app, Function: "`anonymous namespace'::CrashFunction",
			SourceFile: `c:\test_app.cc`, SourceLine: 58, SourceLineBase: 0x0040429b},
		&processor.Frame{Instruction: 0x7c816fd7, Module: k32, Function: "BaseProcessStart", FunctionBase: 0x7c816fb4},
		&processor.Frame{Instruction: 0x7c8123ab, Module: k32},
		// A hostile name: -m drops the separator, and both escape the
		// line feed (textescape.go), which would forge a line.
		&processor.Frame{Instruction: 0x401000, Module: app, Function: "a|b\nc"})
	st.RequestingThread = 1
	var b strings.Builder
	if err := WriteMachine(&b, st); err != nil {
		t.Fatal(err)
	}
	want := `OS|Windows NT|5.1.2600 Service Pack 2
CPU|x86|GenuineIntel family 6 model 13 stepping 8|1
GPU|||
Crash|EXCEPTION_ACCESS_VIOLATION_WRITE|0x45|1
Module|test_app.exe||test_app.pdb|5A9832E5287241C1838ED98914E9B7FF1|0x00400000|0x0042cfff|1
Module|kernel32.dll|5.1.2600.2945|kernel32.pdb|BCE8785C57B44245A669896B6A19B9542|0x7c800000|0x7c8f3fff|0

1|0|test_app.exe|` + "`anonymous namespace'::CrashFunction" + `|c:\test_app.cc|58|0x3
1|1|kernel32.dll|BaseProcessStart|||0x23
1|2|kernel32.dll||||0x123ab
1|3|test_app.exe|ab\x0ac|||0x401000
0|0|||||0x1007ffe64f79898
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("-m (-want +got):\n%s", diff)
	}

	b.Reset()
	if err := WriteBrief(&b, st); err != nil {
		t.Fatal(err)
	}
	wantBrief := "Thread 1 (crashed)\n" +
		" 0  test_app.exe!`anonymous namespace'::CrashFunction [test_app.cc : 58 + 0x3]\n" +
		" 1  kernel32.dll!BaseProcessStart + 0x23\n" +
		" 2  kernel32.dll + 0x123ab\n" +
		" 3  test_app.exe!a|b\\x0ac + 0x401000\n"
	if diff := cmp.Diff(wantBrief, b.String()); diff != "" {
		t.Errorf("-b (-want +got):\n%s", diff)
	}
}

// Breakpad's Crash| line without a crash: the assertion if any, else
// "No crash"; the thread field stays empty without a requesting thread.
func TestMachineCrashLine(t *testing.T) {
	for _, tc := range []struct {
		st   *processor.ProcessState
		want string
	}{
		{&processor.ProcessState{RequestingThread: -1}, "Crash|No crash||"},
		{&processor.ProcessState{RequestingThread: 0, Threads: []*processor.Thread{{}}}, "Crash|No crash||0"},
		{&processor.ProcessState{RequestingThread: -1, Assertion: "Pure virtual function called"}, "Crash|Pure virtual function called||"},
		{&processor.ProcessState{RequestingThread: -1, Crashed: true, CrashReason: "SIGSEGV /SEGV_MAPERR"}, "Crash|SIGSEGV /SEGV_MAPERR|0x0|"},
	} {
		lines := machineHeaderLines(newTextView(tc.st))
		if got := lines[3]; got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	var b strings.Builder
	if err := WriteBrief(&b, &processor.ProcessState{RequestingThread: -1}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), " <no crashing or requesting dump thread identified>\n"; got != want {
		t.Errorf("brief without a requesting thread: got %q, want %q", got, want)
	}
}
