package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The frame line variants of -m and -b, as in Breakpad's outputs:
// breakpad/expected/minidump2.machine.txt (function with a source line,
// PUBLIC symbol), linux_inline.machine.txt (module without symbols),
// breakpad-generated/stress/expected/linux-amd64-docker-live.machine.txt
// (no module).
func TestMachineAndBrief(t *testing.T) {
	p := &textProcess{
		OS: "Windows NT", OSVersion: "5.1.2600 Service Pack 2", CPU: "x86",
		CPUInfo: "GenuineIntel family 6 model 13 stepping 8", CPUCount: 1,
		Crashed: true, CrashReason: "EXCEPTION_ACCESS_VIOLATION_WRITE", CrashAddress: 0x45,
		RequestingThread: 1, HaveModules: true, MainModule: 0,
		Modules: []textModule{
			{CodeFile: `C:\test_app.exe`, DebugFile: `C:\test_app.pdb`, DebugID: "5A9832E5287241C1838ED98914E9B7FF1", Base: 0x400000, Size: 0x2d000},
			{CodeFile: `C:\WINDOWS\system32\kernel32.dll`, Version: "5.1.2600.2945", DebugFile: "kernel32.pdb", DebugID: "BCE8785C57B44245A669896B6A19B9542", Base: 0x7c800000, Size: 0xf4000},
		},
	}
	app, k32 := &p.Modules[0], &p.Modules[1]
	p.Threads = []textThread{
		{Frames: []textFrame{{ReturnAddress: 0x1007ffe64f79898, Trust: "stack scanning"}}},
		{Frames: []textFrame{
			{ReturnAddress: 0x0040429e, Module: app, Function: "`anonymous namespace'::CrashFunction",
				SourceFile: `c:\test_app.cc`, SourceLine: 58, SourceLineBase: 0x0040429b},
			{ReturnAddress: 0x7c816fd7, Module: k32, Function: "BaseProcessStart", FunctionBase: 0x7c816fb4},
			{ReturnAddress: 0x7c8123ab, Module: k32},
			{ReturnAddress: 0x401000, Module: app, Function: "a|b\nc"},
		}},
	}
	var b strings.Builder
	if err := writeMachine(&b, p); err != nil {
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
1|3|test_app.exe|abc|||0x401000
0|0|||||0x1007ffe64f79898
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("-m (-want +got):\n%s", diff)
	}

	b.Reset()
	if err := writeBrief(&b, p); err != nil {
		t.Fatal(err)
	}
	wantBrief := "Thread 1 (crashed)\n" +
		" 0  test_app.exe!`anonymous namespace'::CrashFunction [test_app.cc : 58 + 0x3]\n" +
		" 1  kernel32.dll!BaseProcessStart + 0x23\n" +
		" 2  kernel32.dll + 0x123ab\n" +
		" 3  test_app.exe!a|b\nc + 0x401000\n"
	if diff := cmp.Diff(wantBrief, b.String()); diff != "" {
		t.Errorf("-b (-want +got):\n%s", diff)
	}
}

// Breakpad's Crash| line without a crash: the assertion if any, else
// "No crash"; the thread field stays empty without a requesting thread.
func TestMachineCrashLine(t *testing.T) {
	for _, tc := range []struct {
		p    textProcess
		want string
	}{
		{textProcess{RequestingThread: -1}, "Crash|No crash||"},
		{textProcess{RequestingThread: 0, Threads: make([]textThread, 1)}, "Crash|No crash||0"},
		{textProcess{RequestingThread: -1, Assertion: "Pure virtual function called"}, "Crash|Pure virtual function called||"},
		{textProcess{RequestingThread: -1, Crashed: true, CrashReason: "SIGSEGV /SEGV_MAPERR"}, "Crash|SIGSEGV /SEGV_MAPERR|0x0|"},
	} {
		lines := machineHeaderLines(&tc.p)
		if got := lines[3]; got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	var b strings.Builder
	if err := writeBrief(&b, &textProcess{RequestingThread: -1}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), " <no crashing or requesting dump thread identified>\n"; got != want {
		t.Errorf("brief without a requesting thread: got %q, want %q", got, want)
	}
}
