package synth_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/synthkit"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// TestReadBackWithOurParser reads a builder's dump with this project's
// minidump package. The values were checked against Breakpad's
// minidump_dump in oracle_test.go; this test keeps the two readers agreeing.
func TestReadBackWithOurParser(t *testing.T) {
	for _, arch := range []minidump.Arch{minidump.ArchX86, minidump.ArchAMD64, minidump.ArchARM, minidump.ArchARM64, minidump.ArchARM64Old} {
		t.Run(fmt.Sprintf("%v-%d", arch, uint16(arch)), func(t *testing.T) {
			data, ctx := readBackDump(t, arch)
			f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			checkReadBackThreads(t, f, arch, ctx)
			checkReadBackStreams(t, f)
		})
	}
}

// readBackDump builds a dump of arch with every stream the builder writes;
// ctx is its first thread's context.
func readBackDump(t *testing.T, arch minidump.Arch) ([]byte, minidump.Context) {
	t.Helper()
	b := synth.New(arch, synth.Linux)
	b.SetCSDVersion("Linux 6.1.0 #1 SMP")
	b.Sys.NumberOfProcessors = 2
	ctx := fullContext(arch)
	ctx.SetSP(0x10000)
	b.AddThread(1, ctx, 0x10000, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	b.AddThread(2, fullContext(arch), 0x20000, make([]byte, 16))
	b.AddModule("/lib/libfoo.so", 0x7f000000, 0x5000).SetBuildID([]byte{0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	b.AddMemory(0x30000, []byte("xyz"))
	b.SetException(1, 11, 0x42, 7).Flags = 1
	b.SetMiscInfo(synth.MiscInfo{Size: 24, Flags1: synth.MiscProcessID, ProcessID: 99})
	b.BreakpadInfo = synthkit.BreakpadInfo(2, 1)
	b.AddThreadName(2, "worker")
	b.AddUnloadedModule(synth.UnloadedModule{Base: 0x6f000000, Size: 0x2000, TimeDateStamp: 77, Name: "gone.so"})
	b.MemoryInfo = append(b.MemoryInfo, synth.MemoryInfo{Base: 0x7f000000, AllocationBase: 0x7f000000, Size: 0x5000, State: 0x1000, Protection: 0x20, Type: 0x1000000})
	b.SetLinuxCmdLine("prog", "-x")
	b.SetLinuxAuxv(synthkit.AuxvEntries(ctx.WordSize(), [2]uint64{9, 0x401000}))
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return data, ctx
}

// checkReadBackThreads checks the system info, threads and modules of the
// dump readBackDump builds.
func checkReadBackThreads(t *testing.T, f *minidump.File, arch minidump.Arch, ctx minidump.Context) {
	t.Helper()
	si, err := f.SystemInfo()
	if err != nil || si.Arch != arch || si.CSDVersion != "Linux 6.1.0 #1 SMP" || si.NumProcessors != 2 {
		t.Errorf("SystemInfo %+v, %v", si, err)
	}
	ths, err := f.Threads()
	if err != nil || len(ths) != 2 {
		t.Fatalf("threads %+v, %v", ths, err)
	}
	if ths[0].Context == nil {
		t.Fatalf("thread 1 context: %v", ths[0].ContextErr)
	}
	for i := 0; i < ctx.NumRegs(); i++ {
		want, _ := ctx.Index(i)
		if got, ok := ths[0].Context.Index(i); !ok || got != want {
			t.Errorf("register %s = %#x (valid %v), want %#x", minidump.RegisterNames(arch)[i], got, ok, want)
		}
	}
	if stack, err := f.StackBytes(&ths[0]); err != nil || !bytes.Equal(stack, []byte{1, 2, 3, 4, 5, 6, 7, 8}) || ths[0].Stack.Start != 0x10000 {
		t.Errorf("stack % x at %#x, %v", stack, ths[0].Stack.Start, err)
	}
	ms, err := f.Modules()
	if err != nil || len(ms) != 1 {
		t.Fatalf("modules %+v, %v", ms, err)
	}
	// Breakpad's identifiers for a BpEL record (see oracle_test.go).
	if m := ms[0]; m.CodeID != "1032547698badcfe0102030405060708090a" || m.DebugID != "76543210BA98FEDC01020304050607080" || m.Size != 0x5000 {
		t.Errorf("module %+v", m)
	}
}

// checkReadBackStreams checks the other streams of the dump readBackDump
// builds.
func checkReadBackStreams(t *testing.T, f *minidump.File) {
	t.Helper()
	mem, err := f.Memory()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3)
	if err := mem.ReadMemory(0x30000, buf); err != nil || string(buf) != "xyz" {
		t.Errorf("memory %q, %v", buf, err)
	}
	if err := mem.ReadMemory(0x20000, make([]byte, 16)); err != nil {
		t.Errorf("thread 2's stack is not in the memory list: %v", err)
	}
	ex, err := f.Exception()
	if err != nil || ex.ThreadID != 1 || ex.Code != 11 || ex.Flags != 1 || ex.Address != 0x42 || len(ex.Parameters) != 1 || ex.Context == nil {
		t.Errorf("exception %+v, %v", ex, err)
	}
	if mi, err := f.MiscInfo(); err != nil || mi.ProcessID != 99 {
		t.Errorf("misc info %+v, %v", mi, err)
	}
	if bp, err := f.BreakpadInfo(); err != nil || bp.DumpThreadID != 2 || bp.RequestingThreadID != 1 {
		t.Errorf("breakpad info %+v, %v", bp, err)
	}
	if names, err := f.ThreadNames(); err != nil || names[2] != "worker" {
		t.Errorf("thread names %v, %v", names, err)
	}
	if mi, err := f.MemoryInfo(); err != nil || len(mi) != 1 || mi[0].BaseAddress != 0x7f000000 || mi[0].RegionSize != 0x5000 || mi[0].Protect != 0x20 || mi[0].Type != 0x1000000 {
		t.Errorf("memory info %+v, %v", mi, err)
	}
	// Breakpad neither prints nor uses this stream; our parser follows
	// MINIDUMP_UNLOADED_MODULE_LIST as Microsoft documents it.
	if um, err := f.UnloadedModules(); err != nil || len(um) != 1 || um[0].Base != 0x6f000000 || um[0].Size != 0x2000 || um[0].TimeDateStamp != 77 || um[0].Name != "gone.so" {
		t.Errorf("unloaded modules %+v, %v", um, err)
	}
	if args, err := f.CmdLine(); err != nil || len(args) != 2 || args[1] != "-x" {
		t.Errorf("cmdline %q, %v", args, err)
	}
	if av, err := f.Auxv(); err != nil || len(av) < 1 || av[0].Type != 9 || av[0].Value != 0x401000 {
		t.Errorf("auxv %+v, %v", av, err)
	}
}
