package synth_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/synthkit"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// The tests in this file write dumps with synth.Builder and read them back with
// Breakpad's minidump_dump and minidump_stackwalk, the independent oracles.

// runOracle writes data to a file and runs a Breakpad binary on it,
// returning stdout with runs of blanks collapsed. minidump_dump exits 1 when
// optional streams are absent, so the exit status is not checked; callers
// assert on the output.
func runOracle(t *testing.T, name string, data []byte, args ...string) string {
	t.Helper()
	bin := oracle.Require(t, name)
	path := filepath.Join(t.TempDir(), "test.dmp")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, append(args, path)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	if stdout.Len() == 0 {
		t.Fatalf("%s printed nothing; stderr:\n%s", name, stderr.String())
	}
	return regexp.MustCompile(`[ \t]+`).ReplaceAllString(stdout.String(), " ")
}

func mustContain(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("oracle output lacks %q", w)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

func fullContext(arch minidump.Arch) minidump.Context {
	ctx := minidump.NewContext(arch)
	for i := 0; i < ctx.NumRegs(); i++ {
		ctx.SetIndex(i, 0x1000+uint64(i))
	}
	return ctx
}

func TestMinidumpDumpReadsEveryStream(t *testing.T) {
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.TimeDateStamp = 0x5f000000
	b.SetCSDVersion("Linux 6.1.0-18-amd64 #1 SMP x86_64")
	b.Sys.NumberOfProcessors = 8
	b.Sys.MajorVersion, b.Sys.MinorVersion, b.Sys.BuildNumber = 6, 1, 0
	synthkit.SetCPU(b, "GenuineIntel", 6, 0x55, 7)
	ctx := fullContext(minidump.ArchAMD64)
	ctx.SetSP(0x7ffc0000)
	ctx.SetIP(0x401010)
	stack := []byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4}
	th := b.AddThread(0x1234, ctx, 0x7ffc0000, stack)
	th.Extra = synth.ContextExtra{EFlags: 0x10246, CS: 0x33, SS: 0x2b}
	ctx2 := fullContext(minidump.ArchAMD64)
	ctx2.SetIP(0x402020)
	b.AddThread(0x1235, ctx2, 0x7ffd0000, make([]byte, 16))
	prog := b.AddModule("/usr/bin/prog", 0x400000, 0x3000).
		SetBuildID([]byte{0xa0, 0xa1, 0xa2, 0xa3, 0xb0, 0xb1, 0xc0, 0xc1, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19})
	synthkit.SetVersion(prog, 1, 2, 3, 4)
	guid := [16]byte{0x78, 0x56, 0x34, 0x12, 0x34, 0x12, 0x78, 0x56, 1, 2, 3, 4, 5, 6, 7, 8}
	b.AddModule(`C:\test\lib.dll`, 0x10000000, 0x1000).SetPDB70(guid, 3, "lib.pdb")
	b.AddMemory(0x600000, []byte("hello memory"))
	b.SetException(0x1234, 11, 0xdead, 0x1, 0xdead).Flags = 1
	b.SetMiscInfo(synth.MiscInfo{Flags1: synth.MiscProcessID | synth.MiscProcessTimes, ProcessID: 4321, ProcessCreateTime: 0x5eff0000})
	b.BreakpadInfo = synthkit.BreakpadInfo(0x1235, 0x1234)
	b.AddThreadName(0x1234, "main thread")
	b.MemoryInfo = append(b.MemoryInfo, synth.MemoryInfo{Base: 0x400000, AllocationBase: 0x400000, AllocationProtection: 0x20, Size: 0x3000, State: 0x1000, Protection: 0x20, Type: 0x1000000})
	b.AddStream(synth.StreamLinuxCPUInfo, []byte("processor\t: 0\n"))
	b.AddStream(synth.StreamLinuxProcStatus, []byte("Name:\tprog\n"))
	b.AddStream(synth.StreamLinuxLSBRelease, []byte("DISTRIB_ID=Debian\n"))
	b.SetLinuxCmdLine("/usr/bin/prog", "--crash")
	synthkit.SetLinuxEnviron(b, "HOME=/root")
	b.SetLinuxAuxv(synthkit.AuxvEntries(8, [2]uint64{6, 4096}))
	b.SetLinuxMaps("00400000-00403000 r-xp 00000000 08:01 1234 /usr/bin/prog\n")
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	out := runOracle(t, "minidump_dump", data)
	mustContain(t, out,
		"stream_count = 16",
		"time_date_stamp = 0x5f000000",
		"thread_count = 2",
		"thread_id = 0x1234",
		"stack.start_of_memory_range = 0x7ffc0000",
		"stack.memory.data_size = 0x8",
		"0xdeadbeef01020304",
		"eflags = 0x10246", "cs = 0x33", "ss = 0x2b",
		"rax = 0x1000", "rdx = 0x1001", "rcx = 0x1002", "rbx = 0x1003",
		"rsi = 0x1004", "rdi = 0x1005", "rbp = 0x1006", "rsp = 0x7ffc0000",
		"r8 = 0x1008", "r15 = 0x100f", "rip = 0x401010", "rip = 0x402020",
		"module_count = 2",
		`(code_file) = "/usr/bin/prog"`,
		`(code_identifier) = "a0a1a2a3b0b1c0c108090a0b0c0d0e0f10111213"`,
		`(debug_identifier) = "A3A2A1A0B1B0C1C008090A0B0C0D0E0F0"`,
		"version_info.file_version = 0x10002:0x30004",
		`(version) = "1.2.3.4"`,
		`(debug_file) = "lib.pdb"`,
		`(debug_identifier) = "123456781234567801020304050607083"`,
		"region_count = 3",
		"start_of_memory_range = 0x600000",
		"exception_record.exception_code = 0xb",
		"exception_record.exception_flags = 0x1",
		"exception_record.exception_address = 0xdead",
		"exception_record.number_parameters = 2",
		"processor_architecture = 0x9 (x86-64)",
		"processor_level = 6",
		"processor_revision = 0x5507",
		"number_of_processors = 8",
		"platform_id = 0x8201 (linux)",
		`(csd_version) = "Linux 6.1.0-18-amd64 #1 SMP x86_64"`,
		"cpu.x86_cpu_info.vendor_id[0] = 0x756e6547",
		"cpu.x86_cpu_info.version_information = 0x50657",
		"process_id = 4321",
		"dump_thread_id = 0x1235",
		"requesting_thread_id = 0x1234",
		"thread_name_count = 1",
		`thread_name = "main thread"`,
		"Stream MD_LINUX_CPU_INFO:\nprocessor : 0",
		"DISTRIB_ID=Debian",
		"00400000-00403000 r-xp",
		"base_address = 0x400000",
		"region_size = 0x3000",
		"protection = 0x20",
		"type = 0x1000000",
	)
}

// TestContextsPerArch checks the raw layout of every architecture: each
// register must come back from minidump_dump under its own name.
func TestContextsPerArch(t *testing.T) {
	for _, tc := range []struct {
		arch minidump.Arch
		want []string
	}{
		{minidump.ArchX86, []string{"MDRawContextX86", "context_flags = 0x1003f",
			"eip = 0x1000", "esp = 0x1001", "ebp = 0x1002", "ebx = 0x1003", "esi = 0x1004",
			"edi = 0x1005", "eax = 0x1006", "ecx = 0x1007", "edx = 0x1008", "eflags = 0x1009",
			"processor_architecture = 0x0 (x86)"}},
		{minidump.ArchARM, []string{"MDRawContextARM", "context_flags = 0x40000006",
			"r0 = 0x1000", "r7 = 0x1007", "r11 = 0x100b", "sp = 0x100d",
			"lr = 0x100e", "pc = 0x100f", "cpsr = 0x600f0010", "processor_architecture = 0x5 (arm)"}},
		{minidump.ArchARM64, []string{"MDRawContextARM64", "context_flags = 0x400007",
			"iregs[ 0] = 0x1000", "iregs[19] = 0x1013", "iregs[29] = 0x101d", "iregs[31] = 0x101f",
			"iregs[32] = 0x1020", "cpsr = 0x600f0010", "processor_architecture = 0xc (arm64)"}},
		// Breakpad converts the old layout to the new one when reading it.
		{minidump.ArchARM64Old, []string{"MDRawContextARM64",
			"iregs[ 0] = 0x1000", "iregs[29] = 0x101d", "iregs[32] = 0x1020", "cpsr = 0x600f0010",
			"processor_architecture = 0x8003"}},
	} {
		t.Run(tc.arch.String()+fmt.Sprint(uint16(tc.arch)), func(t *testing.T) {
			b := synth.New(tc.arch, synth.Linux)
			th := b.AddThread(7, fullContext(tc.arch), 0x1000, make([]byte, 8))
			th.Extra.CPSR = 0x600f0010
			b.SetException(7, 6, 0)
			data, err := b.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			out := runOracle(t, "minidump_dump", data)
			mustContain(t, out, tc.want...)
		})
	}
}

// TestStackwalkFollowsFramePointers builds a two-frame amd64 stack with the
// Stack helper and checks that Breakpad's minidump_stackwalk finds the caller
// through the frame-pointer chain.
func TestStackwalkFollowsFramePointers(t *testing.T) {
	const stackBase = 0x7ffe0000
	s := synthkit.NewStack(stackBase, 8)
	s.Word(0).Word(0)                                      // frame 0 locals
	s.Mark("frame0").WordLabel("frame1", 0).Word(0x401200) // saved rbp, return address
	s.Word(0).Mark("frame1").WordLabel("frame2", 0).Word(0x401300)
	s.Mark("frame2").Word(0).Word(0)
	stack, err := s.Finish()
	if err != nil {
		t.Fatal(err)
	}
	ctx := minidump.NewContext(minidump.ArchAMD64)
	ctx.SetIP(0x401100)
	ctx.SetSP(stackBase)
	fp, _ := s.Label("frame0")
	ctx.Set("rbp", fp)
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.AddThread(1, ctx, stackBase, stack)
	b.AddModule("/bin/prog", 0x400000, 0x10000).SetBuildID(bytes.Repeat([]byte{0x11}, 20))
	b.SetException(1, 11, 0)
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	out := runOracle(t, "minidump_stackwalk", data, "-m")
	mustContain(t, out,
		"Crash|SIGSEGV /0x00000000|0x0|0",
		"0|0|prog||||0x1100",
		"0|1|prog||||0x1200",
		"0|2|prog||||0x1300",
	)
}
