package processor

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/synthkit"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// The memory of execDump's process: its program's text, a heap and an
// anonymous executable mapping (JIT code), all below 4 GiB so that one
// layout serves x86 too.
const (
	execProg  = 0x400000
	execHeap  = 0x1000000
	execJIT   = 0x2000000
	execStack = 0x3000000
	execSize  = 0x10000
)

// execMap is how a dump lists its memory: not at all, as Linux's maps
// stream, or as the memory info list (Windows, macOS: Crashpad).
type execMap int

const (
	noMap execMap = iota
	linuxMaps
	memoryInfo
)

// execDump is a dump of one thread of arch whose context frame lies in
// the program at execProg+0x100. Its frame's caller pc is callerPC: by
// CFI, from the word at sp (viaCFI, with the program's symbols), or
// else from the frame record at the frame pointer. Above, a second
// frame record holds the program's return execProg+0x500 and ends the
// chain; with CFI the frame pointer points at it directly. A third,
// empty record above ends the chain.
func execDump(t *testing.T, arch minidump.Arch, os synth.OS, m execMap, callerPC uint64, viaCFI bool) ([]byte, string) {
	t.Helper()
	word, fp := 8, "rbp"
	switch arch {
	case minidump.ArchX86:
		word, fp = 4, "ebp"
	case minidump.ArchARM64:
		fp = "x29"
	}
	s := synthkit.NewStack(execStack, word)
	s.Append(4*word, 0)
	if viaCFI {
		s.Mark("sp").Word(0).Word(callerPC) // CFA sp+2 words, return address at CFA-1 word
		s.Append(2*word, 0)
	} else {
		s.Mark("sp").Append(2*word, 0)
		s.Mark("record1").WordLabel("record2", 0).Word(callerPC)
		s.Append(2*word, 0)
	}
	s.Mark("record2").WordLabel("record3", 0).Word(execProg + 0x500)
	s.Append(2*word, 0).Mark("record3").Word(0).Word(0)
	s.Append(8*word, 0)
	stack, err := s.Finish()
	if err != nil {
		t.Fatal(err)
	}
	sp, _ := s.Label("sp")
	fpv, _ := s.Label("record2")
	if !viaCFI {
		fpv, _ = s.Label("record1")
	}
	ctx := minidump.NewContext(arch)
	for i := range ctx.NumRegs() {
		ctx.SetIndex(i, 0)
	}
	ctx.SetIP(execProg + 0x100)
	ctx.SetSP(sp)
	ctx.Set(fp, fpv)
	if arch == minidump.ArchARM64 && !viaCFI {
		// Breakpad's arm64 frame-pointer step takes the callee's lr as
		// the caller's pc (the context frame's lr: the record's word).
		ctx.Set("lr", callerPC)
	}
	b := synth.New(arch, os)
	b.AddThread(1, ctx, execStack, stack)
	b.AddModule("/bin/prog", execProg, execSize).SetBuildID(bytes.Repeat([]byte{0x11}, 20))
	switch m {
	case linuxMaps:
		b.SetLinuxMaps(fmt.Sprintf("%08x-%08x r-xp 00000000 08:01 1 /bin/prog\n", execProg, execProg+execSize) +
			fmt.Sprintf("%08x-%08x rw-p 00000000 00:00 0 [heap]\n", execHeap, execHeap+execSize) +
			fmt.Sprintf("%08x-%08x rwxp 00000000 00:00 0 \n", execJIT, execJIT+execSize) +
			fmt.Sprintf("%08x-%08x rw-p 00000000 00:00 0 [stack]\n", execStack, execStack+execSize))
	case memoryInfo:
		const commit, image, private = 0x1000, 0x1000000, 0x20000
		b.MemoryInfo = []synth.MemoryInfo{
			{Base: execProg, AllocationBase: execProg, Size: execSize, State: commit, Protection: 0x20, Type: image},   // PAGE_EXECUTE_READ
			{Base: execHeap, AllocationBase: execHeap, Size: execSize, State: commit, Protection: 0x04, Type: private}, // PAGE_READWRITE
			{Base: execJIT, AllocationBase: execJIT, Size: execSize, State: commit, Protection: 0x40, Type: private},   // PAGE_EXECUTE_READWRITE
			{Base: execStack, AllocationBase: execStack, Size: execSize, State: commit, Protection: 0x04, Type: private},
		}
	}
	b.SetException(1, 11, 0)
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	d := openBytes(t, data)
	mods, err := d.Modules()
	if err != nil || len(mods) != 1 {
		t.Fatalf("modules: %v, %v", mods, err)
	}
	return data, mods[0].DebugFile + "\x00" + mods[0].DebugID
}

// execCFI is the program's CFI for execDump's frame 0: the return
// address at sp+1 word, the CFA two words up, the frame pointer kept.
var execCFI = map[minidump.Arch]string{
	minidump.ArchAMD64: "STACK CFI INIT 100 100 .cfa: $rsp 16 + .ra: .cfa -8 + ^\n",
	minidump.ArchX86:   "STACK CFI INIT 100 100 .cfa: $esp 8 + .ra: .cfa -4 + ^\n",
	minidump.ArchARM64: "STACK CFI INIT 100 100 .cfa: sp 16 + .ra: .cfa -8 + ^\n",
}

var execModuleOS = map[minidump.Arch]string{minidump.ArchAMD64: "x86_64", minidump.ArchX86: "x86", minidump.ArchARM64: "arm64"}

// TestReturnIntoData: on every architecture, a caller pc that CFI or the
// frame record gives is refused where it lies in no module and the dump's
// memory map (Linux's maps stream, the memory info list of Windows and
// macOS dumps) lists it in no executable mapping: the heap holds no
// return address, and the walk's other rules (the frame record after
// CFI, the scan after the record) find the program's return above it.
// In an executable anonymous mapping (JIT code) it is taken, as where
// the dump lists no map, and as Breakpad's mode always takes it.
func TestReturnIntoData(t *testing.T) {
	type wantFrame struct {
		pc    uint64
		trust walker.Trust
	}
	oses := map[minidump.Arch][]synth.OS{
		minidump.ArchAMD64: {synth.Linux, synth.Windows, synth.MacOS},
		minidump.ArchX86:   {synth.Linux, synth.Windows},
		minidump.ArchARM64: {synth.Linux, synth.MacOS},
	}
	for _, arch := range []minidump.Arch{minidump.ArchAMD64, minidump.ArchX86, minidump.ArchARM64} {
		for _, os := range oses[arch] {
			for _, viaCFI := range []bool{false, true} {
				took, other := walker.TrustFramePointer, walker.TrustScan
				if viaCFI {
					took, other = walker.TrustCFI, walker.TrustFramePointer
				}
				m := memoryInfo
				if os == synth.Linux {
					m = linuxMaps
				}
				for _, c := range []struct {
					name     string
					m        execMap
					callerPC uint64
					breakpad bool
					want     wantFrame
				}{
					{"heap", m, execHeap + 0x800, false, wantFrame{execProg + 0x500, other}},
					{"jit", m, execJIT + 0x800, false, wantFrame{execJIT + 0x800, took}},
					{"heap no map", noMap, execHeap + 0x800, false, wantFrame{execHeap + 0x800, took}},
					{"heap breakpad", m, execHeap + 0x800, true, wantFrame{execHeap + 0x800, took}},
				} {
					name := fmt.Sprintf("%v/os%#x/cfi=%v/%s", arch, uint32(os), viaCFI, c.name)
					t.Run(name, func(t *testing.T) {
						if os == synth.Windows && arch == minidump.ArchAMD64 && (!viaCFI || c.want.trust == walker.TrustFramePointer) {
							// Windows' amd64 rbp is no frame pointer unless the
							// code shows the prologue: the scan finds the caller.
							c.want = wantFrame{execProg + 0x500, walker.TrustScan}
						}
						data, key := execDump(t, arch, os, c.m, c.callerPC, viaCFI)
						d := openBytes(t, data)
						sup := &mapSupplier{texts: map[string]string{}}
						if viaCFI {
							file, id, _ := bytes.Cut([]byte(key), []byte{0})
							sup.texts[string(file)] = fmt.Sprintf("MODULE Linux %s %s prog\nFUNC 100 100 0 f\nFUNC 480 100 0 g\n%s", execModuleOS[arch], id, execCFI[arch])
						}
						opts := Options{}
						if c.breakpad {
							opts.Mode = walker.Breakpad
						}
						st, err := Process(d, sup, opts)
						if err != nil {
							t.Fatal(err)
						}
						fr := st.Threads[0].Frames
						if len(fr) < 2 {
							t.Fatalf("%d frames, want a caller", len(fr))
						}
						pc, _ := fr[1].Context.IP()
						if got := (wantFrame{pc, fr[1].Trust}); got != c.want {
							t.Errorf("frame 1 pc %#x by %v, want %#x by %v", got.pc, got.trust, c.want.pc, c.want.trust)
						}
					})
				}
			}
		}
	}
}
