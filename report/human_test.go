package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// The expected texts below are excerpts of Breakpad minidump_stackwalk output
// from ../shared/corpus (files named in each case); the inputs are the values
// those outputs show.

func human(t *testing.T, st *processor.ProcessState, opts HumanOptions) string {
	t.Helper()
	var b strings.Builder
	if err := WriteHuman(&b, st, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// breakpad-generated/expected/flags/linux-amd64-threads.t2.txt, thread 4 frames 0-1.
func TestAMD64Registers(t *testing.T) {
	// The module path as the dump names it (the oracle prints it); no file is opened.
	mod := &processor.Module{CodeFile: "/tmp/threads", Base: 0x55856fd1e000, Size: 0x14000}
	all := map[string]uint64{"rax": 0, "rdx": 0, "rcx": 0, "rbx": 0x55856fd392a0, "rsi": 0, "rdi": 4,
		"rbp": 0, "rsp": 0x7fd873739ea8, "r8": 0, "r9": 0, "r10": 0, "r11": 0x293, "r12": 3, "r13": 0,
		"r14": 0x7ffc5ce0f260, "r15": 0x7fd872f3a000, "rip": 0x55856fd20bf5}
	cfi := map[string]uint64{"rbx": 0x55856fd392a0, "rbp": 0, "rsp": 0x7fd873739eb0, "r12": 3, "r13": 0,
		"r14": 0x7ffc5ce0f260, "r15": 0x7fd872f3a000, "rip": 0x55856fd20c60}
	st := newState("amd64", false, mod)
	st.Crashed, st.RequestingThread = true, 0
	th := withFrames(st,
		&processor.Frame{Context: ctxOf(minidump.ArchAMD64, all), Trust: processor.TrustContext,
			Instruction: 0x55856fd20bf5, Module: mod, Function: "do_crash", FunctionBase: 0x55856fd20be0},
		&processor.Frame{Context: ctxOf(minidump.ArchAMD64, cfi), Trust: walker.TrustCFI,
			Instruction: 0x55856fd20c5f, Module: mod, Function: "crash_after_others_parked",
			SourceFile: "/src/threads.c", SourceLine: 73, SourceLineBase: 0x55856fd20c56})
	var b strings.Builder
	pr := &printer{w: &b}
	writeStack(pr, newTextView(st), th, false)
	want := ` 0  threads!do_crash + 0x15
    rax = 0x0000000000000000   rdx = 0x0000000000000000
    rcx = 0x0000000000000000   rbx = 0x000055856fd392a0
    rsi = 0x0000000000000000   rdi = 0x0000000000000004
    rbp = 0x0000000000000000   rsp = 0x00007fd873739ea8
     r8 = 0x0000000000000000    r9 = 0x0000000000000000
    r10 = 0x0000000000000000   r11 = 0x0000000000000293
    r12 = 0x0000000000000003   r13 = 0x0000000000000000
    r14 = 0x00007ffc5ce0f260   r15 = 0x00007fd872f3a000
    rip = 0x000055856fd20bf5
    Found by: given as instruction pointer in context
 1  threads!crash_after_others_parked [threads.c : 73 + 0xa]
    rbx = 0x000055856fd392a0   rbp = 0x0000000000000000
    rsp = 0x00007fd873739eb0   r12 = 0x0000000000000003
    r13 = 0x0000000000000000   r14 = 0x00007ffc5ce0f260
    r15 = 0x00007fd872f3a000   rip = 0x000055856fd20c60
    Found by: call frame info
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("amd64 frames (-want +got):\n%s", diff)
	}
}

// breakpad/expected/minidump2.stackwalk.txt, frames 0-1: x86 prints eax, ecx,
// edx and efl only for the context frame.
func TestX86Registers(t *testing.T) {
	mod := &processor.Module{CodeFile: `c:\test_app.exe`, Base: 0x400000, Size: 0x2d000}
	all := map[string]uint64{"eip": 0x0040429e, "esp": 0x0012fe84, "ebp": 0x0012fe88, "ebx": 0x7c80abc1,
		"esi": 2, "edi": 0xa28, "eax": 0x45, "ecx": 0x0012fe94, "edx": 0x0042bc58, "efl": 0x00010246}
	caller := ctxOf(minidump.ArchX86, map[string]uint64{"eip": 0x00404200, "esp": 0x0012fe90, "ebp": 0x0012ff70})
	caller.Set("eax", 1) // recovered but not printed: Breakpad needs the full context
	st := newState("x86", false, mod)
	th := withFrames(st,
		&processor.Frame{Context: ctxOf(minidump.ArchX86, all), Trust: processor.TrustContext, Instruction: 0x0040429e,
			Module: mod, Function: "`anonymous namespace'::CrashFunction", SourceFile: `c:\test_app.cc`, SourceLine: 58,
			SourceLineBase: 0x0040429b},
		&processor.Frame{Context: caller, Trust: walker.TrustCFI, Instruction: 0x004041ff, Module: mod, Function: "main",
			SourceFile: "c:/test_app.cc", SourceLine: 65, SourceLineBase: 0x004041fb})
	var b strings.Builder
	writeStack(&printer{w: &b}, newTextView(st), th, false)
	want := ` 0  test_app.exe!` + "`anonymous namespace'::CrashFunction" + ` [test_app.cc : 58 + 0x3]
    eip = 0x0040429e   esp = 0x0012fe84   ebp = 0x0012fe88   ebx = 0x7c80abc1
    esi = 0x00000002   edi = 0x00000a28   eax = 0x00000045   ecx = 0x0012fe94
    edx = 0x0042bc58   efl = 0x00010246
    Found by: given as instruction pointer in context
 1  test_app.exe!main [test_app.cc : 65 + 0x5]
    eip = 0x00404200   esp = 0x0012fe90   ebp = 0x0012ff70
    Found by: call frame info
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("x86 frames (-want +got):\n%s", diff)
	}
}

// breakpad/expected/microdump-arm.stackwalk.txt frame 1 and
// microdump-arm64.stackwalk.txt frame 1: ARM prints r12 before fp.
func TestARMRegisters(t *testing.T) {
	arm := ctxOf(minidump.ArchARM, map[string]uint64{"r4": 0xaab431dc, "r5": 0xab20d7d0, "r6": 0xab203478,
		"r7": 0x149, "r8": 0xab203588, "r9": 0xab20d7d0, "r10": 0xffea6f60, "fp": 0xab2034d8,
		"sp": 0xffea6f28, "pc": 0xaab0a741})
	arm64 := ctxOf(minidump.ArchARM64, map[string]uint64{"x19": 0x00000055955022d0, "x20": 0x00000055954ee170,
		"x21": 0x00000055954ee170, "x22": 0x00000055954ee390, "x23": 0x00000149f6d1624a,
		"x24": 0x000000555f6df000, "x25": 1, "x26": 0x00000149f6d16249, "x27": 1,
		"x28": 0x000000555f6b35c9, "fp": 0x0000007fe2ba7a50, "sp": 0x0000007fe2ba7a50, "pc": 0x000000555f66323c})
	armAll := ctxOf(minidump.ArchARM, map[string]uint64{"r12": 0x12, "fp": 0xea2})
	for _, tc := range []struct {
		cpu  string
		f    processor.Frame
		want string
	}{
		{"arm", processor.Frame{Context: arm, Trust: walker.TrustCFI}, `
     r4 = 0xaab431dc    r5 = 0xab20d7d0    r6 = 0xab203478    r7 = 0x00000149
     r8 = 0xab203588    r9 = 0xab20d7d0   r10 = 0xffea6f60    fp = 0xab2034d8
     sp = 0xffea6f28    pc = 0xaab0a741`},
		{"arm64", processor.Frame{Context: arm64, Trust: walker.TrustCFI}, `
    x19 = 0x00000055955022d0   x20 = 0x00000055954ee170
    x21 = 0x00000055954ee170   x22 = 0x00000055954ee390
    x23 = 0x00000149f6d1624a   x24 = 0x000000555f6df000
    x25 = 0x0000000000000001   x26 = 0x00000149f6d16249
    x27 = 0x0000000000000001   x28 = 0x000000555f6b35c9
     fp = 0x0000007fe2ba7a50    sp = 0x0000007fe2ba7a50
     pc = 0x000000555f66323c`},
		// The context frame prints every register, valid bit or not.
		{"arm", processor.Frame{Context: armAll, Trust: processor.TrustContext}, `
     r0 = 0x00000000    r1 = 0x00000000    r2 = 0x00000000    r3 = 0x00000000
     r4 = 0x00000000    r5 = 0x00000000    r6 = 0x00000000    r7 = 0x00000000
     r8 = 0x00000000    r9 = 0x00000000   r10 = 0x00000000   r12 = 0x00000012
     fp = 0x00000ea2    sp = 0x00000000    lr = 0x00000000    pc = 0x00000000`},
	} {
		var b strings.Builder
		pr := &printer{w: &b}
		pr.puts("\n ")
		writeRegisters(pr, tc.cpu, &tc.f)
		if diff := cmp.Diff(tc.want, b.String()); diff != "" {
			t.Errorf("%s registers (-want +got):\n%s", tc.cpu, diff)
		}
	}
}

// breakpad/expected/linux_inline.stackwalk.txt: an inline frame prints a
// line holding one space where registers would be.
func TestInlineFrame(t *testing.T) {
	mod := &processor.Module{CodeFile: "linux_inline", Base: 0x200000, Size: 0x442d0}
	st := newState("amd64", false, mod)
	th := withFrames(st, &processor.Frame{Context: minidump.NewContext(minidump.ArchAMD64), Trust: processor.TrustInline,
		Instruction: 0x2161b6, Module: mod, Function: "func()", SourceFile: "linux_inline.cpp",
		SourceLine: 27, SourceLineBase: 0x2161b6})
	var b strings.Builder
	writeStack(&printer{w: &b}, newTextView(st), th, false)
	want := " 0  linux_inline!func() [linux_inline.cpp : 27 + 0x0]\n \n    Found by: inline record\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestHeader(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   *processor.ProcessState
		want string
	}{
		{"minidump_32bit_crash_addr", &processor.ProcessState{System: &processor.SystemInfo{OS: "Windows NT",
			OSVersion: "5.1.2600 Service Pack 2", CPU: "x86", CPUInfo: "GenuineIntel family 6 model 13 stepping 8", CPUCount: 1},
			Crashed: true, CrashReason: "EXCEPTION_ACCESS_VIOLATION_WRITE", CrashAddress: 0x45,
			Exception:     &processor.Exception{Code: 0xc0000005, Parameters: []uint64{1, 0xffffffff00000045}},
			TimeDateStamp: 0x45d35f73, ProcessCreateTime: 0x45d35f73, HasCreateTime: true}, `Operating system: Windows NT
                  5.1.2600 Service Pack 2
CPU: x86
     GenuineIntel family 6 model 13 stepping 8
     1 CPU

GPU: UNKNOWN

Crash reason:  EXCEPTION_ACCESS_VIOLATION_WRITE
Crash address: 0x45
Crash parameters:
    value: 0x0000000000000001  description: 
    value: 0xffffffff00000045  description: 
Process uptime: 0 seconds`},
		// tiny-exe-with-cet-xsave.stackwalk.txt
		{"no crash", &processor.ProcessState{System: &processor.SystemInfo{OS: "Windows NT", OSVersion: "10.0.22000 ",
			CPU: "amd64", CPUInfo: "family 6 model 154 stepping 3", CPUCount: 20},
			TimeDateStamp: 105, ProcessCreateTime: 100, HasCreateTime: true}, `Operating system: Windows NT
                  10.0.22000 
CPU: amd64
     family 6 model 154 stepping 3
     20 CPUs

GPU: UNKNOWN

No crash
Process uptime: 5 seconds`},
		// microdump-arm.stackwalk.txt: GPU info, no CPU info, empty crash reason.
		{"gpu", &processor.ProcessState{System: &processor.SystemInfo{OS: "Android", OSVersion: "OS VERSION INFO",
			CPU: "arm", CPUCount: 2}, GPU: processor.GPUInfo{Version: "OpenGL ES 3.0 V@104.0 AU@  (GIT@Id3510ff6dc)",
			Vendor: "Qualcomm", Renderer: "Adreno (TM) 330"}, Crashed: true, TimeDateStamp: 5}, `Operating system: Android
                  OS VERSION INFO
CPU: arm
     2 CPUs

GPU: OpenGL ES 3.0 V@104.0 AU@  (GIT@Id3510ff6dc)
     Qualcomm
     Adreno (TM) 330

Crash reason:  
Crash address: 0x0
Process uptime: not available`},
	} {
		got := strings.Join(headerLines(tc.st), "\n")
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// breakpad/expected/thread_name_list.stackwalk.txt and
// minidump2.stackwalk.txt module lines.
func TestModules(t *testing.T) {
	st := newState("x86", true,
		&processor.Module{CodeFile: `C:\allocer32.exe`, DebugFile: "", Base: 0x400000, Size: 0x17000, NoSymbolsWarning: true},
		&processor.Module{CodeFile: `C:\heob32.exe`, DebugFile: "heob32.pdb", Version: "3.2.0.99", Base: 0x1170000, Size: 0xce000},
		&processor.Module{CodeFile: "/lib/libc.so", DebugFile: "/lib/libc.so", DebugID: "ABC0", Base: 0x7f0000000000,
			Size: 0x1000, CorruptSymbolsWarning: true},
	)
	var b strings.Builder
	writeModules(&printer{w: &b}, newTextView(st))
	want := `
Loaded modules:
0x00400000 - 0x00416fff  allocer32.exe  ???  (main)  (WARNING: No symbols, , )
0x01170000 - 0x0123dfff  heob32.exe  3.2.0.99
0x7f0000000000 - 0x7f0000000fff  libc.so  ???  (WARNING: Corrupt symbols, libc.so, ABC0)
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	st.HaveModules = false
	b.Reset()
	writeModules(&printer{w: &b}, newTextView(st))
	if b.Len() != 0 {
		t.Errorf("no module list printed %q", b.String())
	}
}

// The chain and stack-address rules of -d, checked against
// breakpad/expected/flags/minidump2.d.txt: words pointing into
// [sp, end) are stack addresses, and the latest earlier word pointing at a
// stack-address word makes it "part of a chain".
func TestStackDump(t *testing.T) {
	words := []uint32{0x45, 0x0012fe90, 0x00404200, 0x0012fe84, 0x0012fe90, 0x0012f000}
	stack := make([]byte, 0x4+4*len(words))
	for i, w := range words {
		for j := 0; j < 4; j++ {
			stack[4+4*i+j] = byte(w >> (8 * j))
		}
	}
	st := newState("x86", false)
	ctx := ctxOf(minidump.ArchX86, map[string]uint64{"esp": 0x0012fe84})
	st.Threads = []*processor.Thread{{StackBase: 0x0012fe80, Stack: stack, Context: &ctx}}
	v := newTextView(st)
	v.symbolize = func(addr uint64) []processor.SourceInfo { // what symbol files would say
		if addr == 0x00404200 {
			return []processor.SourceInfo{{Function: "main", File: `c:\test_app.cc`, Line: 66, LineBase: 0x00404200}}
		}
		return nil
	}
	var b strings.Builder
	left := int64(DefaultMaxStackDumpBytes)
	writeStackDump(&printer{w: &b}, v, st.Threads[0], &left)
	want := `stack begin:    0x000000000012fe80
stack end:      0x000000000012fe9c
stack pointer:  0x000000000012fe84

Stack range to dump: 0x000000000012fe84 - 0x000000000012fe9c

Possible instruction pointers:
 *(0x0012fe84) = 0x00000045
 *(0x0012fe88) = 0x0012fe90 -- stack_address
 *(0x0012fe8c) = 0x00404200 main [test_app.cc : 66 + 0x0]
 *(0x0012fe90) = 0x0012fe84 -- stack_address  (part of a chain: 0x000000000012fe88 --> 0x000000000012fe90)
 *(0x0012fe94) = 0x0012fe90 -- stack_address
 *(0x0012fe98) = 0x0012f000

`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestThreadSelection(t *testing.T) {
	st := newState("amd64", false)
	st.Crashed, st.HaveModules = true, true
	for range 3 {
		withFrames(st)
	}
	st.RequestingThread = 1
	count := func(s string) string {
		var titles []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "Thread ") || strings.HasPrefix(l, "Loaded") {
				titles = append(titles, l)
			}
		}
		return strings.Join(titles, ",")
	}
	for _, tc := range []struct {
		opts HumanOptions
		want string
	}{
		{DefaultHumanOptions, "Thread 1 (crashed),Thread 0,Thread 2,Loaded modules:"},
		{HumanOptions{RequestingThreadOnly: true, ExtraThread: -1}, "Thread 1 (crashed),Loaded modules:"},
		{HumanOptions{ExtraThread: 2}, "Thread 1 (crashed),Thread 2"},
		{HumanOptions{ExtraThread: 1}, "Thread 1 (crashed)"},
	} {
		if got := count(human(t, st, tc.opts)); got != tc.want {
			t.Errorf("%+v: got %s, want %s", tc.opts, got, tc.want)
		}
	}
	if got := human(t, st, DefaultHumanOptions); !strings.Contains(got, "Thread 0\n <no frames>\n") {
		t.Errorf("empty thread not marked:\n%s", got)
	}
}

// A caller stack pointer far beyond the stack memory (a hostile dump) does
// not make -s print an unbounded number of blank rows.
func TestStackContentsBounded(t *testing.T) {
	callee := ctxOf(minidump.ArchAMD64, map[string]uint64{"rsp": 0x1000, "rip": 0x10})
	caller := ctxOf(minidump.ArchAMD64, map[string]uint64{"rsp": 1 << 62, "rip": 0x20})
	st := newState("amd64", false)
	th := withFrames(st, &processor.Frame{Context: callee, Trust: processor.TrustContext},
		&processor.Frame{Context: caller, Trust: walker.TrustScan})
	th.StackBase, th.Stack = 0x1000, make([]byte, 64)
	out := human(t, st, HumanOptions{StackContents: true, ExtraThread: -1})
	if rows := strings.Count(out, "\n     0000"); rows > (64+4096)/16+1 {
		t.Errorf("%d stack rows printed", rows)
	}
}
