package processor

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/synthkit"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// mapSupplier serves symbol texts by debug file.
type mapSupplier struct {
	t     *testing.T
	texts map[string]string
	asked map[string]int
}

func (s *mapSupplier) Symbols(m symfile.ModuleKey) (*symfile.File, error) {
	if s.asked == nil {
		s.asked = map[string]int{}
	}
	s.asked[m.DebugFile]++
	text, ok := s.texts[m.DebugFile]
	if !ok {
		return nil, fmt.Errorf("%s: %w", m.DebugFile, symfile.ErrNotFound)
	}
	return symfile.NewFile([]byte(text), m.DebugFile)
}

func open(t *testing.T, b *synth.Builder) *minidump.File {
	t.Helper()
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return openBytes(t, data)
}

// openBytes parses data as a minidump; it fails t on an error.
func openBytes(t *testing.T, data []byte) *minidump.File {
	t.Helper()
	d, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func amd64Context(rip, rsp, rbp uint64) minidump.Context {
	c := minidump.NewContext(minidump.ArchAMD64)
	for i := 0; i < c.NumRegs(); i++ {
		c.SetIndex(i, 0)
	}
	c.Set("rip", rip)
	c.Set("rsp", rsp)
	c.Set("rbp", rbp)
	return c
}

const (
	exeBase = 0x400000
	libBase = 0x7f0000000000
	stackLo = 0x7ffe00000000
)

func fpStack(t *testing.T, ret uint64) (*synthkit.Stack, []byte) {
	s := synthkit.NewStack(stackLo, 8)
	s.Append(16, 0).Mark("rbp").WordLabel("rbp2", 0).Word(ret).Append(16, 0).Mark("rbp2").Word(0).Word(0)
	data, err := s.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return s, data
}

// Breakpad's thread rules: the dump thread is not walked, the requesting
// thread is the exception's, and its walk starts from the exception context.
func TestThreadRoles(t *testing.T) {
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.AddModule("/bin/exe", exeBase, 0x10000)
	s, stack := fpStack(t, exeBase+0x500)
	rbp, _ := s.Label("rbp")
	b.AddThread(1, amd64Context(exeBase+0x100, stackLo, rbp), stackLo, stack)
	b.AddThread(2, amd64Context(exeBase+0x200, stackLo, rbp), stackLo, stack)
	b.AddThread(3, amd64Context(exeBase+0x300, stackLo, rbp), stackLo, stack)
	b.BreakpadInfo = synthkit.BreakpadInfo(2, 1)
	ex := b.SetException(3, 11, 0)
	crash := amd64Context(exeBase+0x333, stackLo, rbp)
	ex.Context = &crash
	st, err := Process(open(t, b), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Crashed || st.RequestingThread != 2 {
		t.Fatalf("crashed %v requesting %d, want true 2", st.Crashed, st.RequestingThread)
	}
	if st.Threads[1].Status != ThreadDumpThread || len(st.Threads[1].Frames) != 0 {
		t.Errorf("dump thread: status %v, %d frames", st.Threads[1].Status, len(st.Threads[1].Frames))
	}
	if ip := st.Threads[2].Frames[0].ReturnAddress(); ip != exeBase+0x333 {
		t.Errorf("crashed thread starts at %#x, want the exception context's %#x", ip, exeBase+0x333)
	}
	if ip := st.Threads[0].Frames[0].ReturnAddress(); ip != exeBase+0x100 {
		t.Errorf("thread 0 starts at %#x", ip)
	}
	for _, i := range []int{0, 2} {
		fr := st.Threads[i].Frames
		if len(fr) != 2 || fr[1].Trust != walker.TrustFramePointer || fr[1].ReturnAddress() != exeBase+0x500 {
			t.Errorf("thread %d: %d frames", i, len(fr))
		}
	}
	threads, req := st.BreakpadThreads()
	if len(threads) != 2 || req != 1 || threads[1].ID != 3 {
		t.Errorf("Breakpad threads: %d, requesting %d", len(threads), req)
	}
}

// Without stack bytes in the thread descriptor, the memory-list region
// holding the descriptor's start is the stack.
func TestStackFromMemoryList(t *testing.T) {
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.AddModule("/bin/exe", exeBase, 0x10000)
	s, stack := fpStack(t, exeBase+0x500)
	rbp, _ := s.Label("rbp")
	b.AddThread(1, amd64Context(exeBase+0x100, stackLo, rbp), stackLo, nil)
	b.AddMemory(stackLo, stack)
	st, err := Process(open(t, b), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	th := st.Threads[0]
	if len(th.Frames) != 2 {
		t.Fatalf("%d frames, want 2 (stack read from the memory list)", len(th.Frames))
	}
	if th.StackBase != stackLo || !bytes.Equal(th.Stack, stack) {
		t.Errorf("stack %#x+%d", th.StackBase, len(th.Stack))
	}
}

// Symbol warnings follow Breakpad: only modules a frame landed in whose
// symbols are missing, matched by debug file and identifier; a module
// merely probed while scanning is tried but not warned about.
func TestSymbolStatus(t *testing.T) {
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.AddModule("/bin/exe", exeBase, 0x10000).SetBuildID([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	b.AddModule("/lib/libprobe.so", libBase, 0x10000).SetBuildID([]byte{2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	b.AddModule("/lib/libnosyms.so", libBase+0x100000, 0x10000).SetBuildID([]byte{3, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	b.AddModule("/lib/libunused.so", libBase+0x200000, 0x10000).SetBuildID([]byte{4, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	s := synthkit.NewStack(stackLo, 8)
	// A word pointing into libprobe (probed, not a frame), then a return
	// address into libnosyms.
	s.Word(libBase+0x100).Word(libBase+0x100000+0x80).Append(64, 0)
	stack, _ := s.Finish()
	b.AddThread(1, amd64Context(exeBase+0x180, stackLo, 0), stackLo, stack)
	d := open(t, b)
	mods, _ := d.Modules()
	sup := &mapSupplier{texts: map[string]string{
		mods[0].DebugFile: "MODULE Linux x86_64 " + mods[0].DebugID + " exe\nFUNC 100 100 0 main\n",
		mods[1].DebugFile: "MODULE Linux x86_64 " + mods[1].DebugID + " libprobe.so\nFUNC 1000 10 0 elsewhere\n",
	}}
	st, err := Process(d, sup, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fr := st.Threads[0].Frames
	if len(fr) != 2 || fr[0].Function != "main" || fr[1].Module == nil || fr[1].Module.Index != 2 {
		t.Fatalf("frames: %d", len(fr))
	}
	want := []struct {
		status walker.SymbolStatus
		warn   bool
	}{{walker.SymbolsLoaded, false}, {walker.SymbolsLoaded, false}, {walker.SymbolsMissing, true}, {walker.SymbolsNotTried, false}}
	for i, w := range want {
		ms := st.Modules[i]
		if ms.Symbols != w.status || ms.NoSymbolsWarning != w.warn || ms.CorruptSymbolsWarning {
			t.Errorf("module %d (%s): status %v warning %v, want %v %v", i, ms.CodeFile, ms.Symbols, ms.NoSymbolsWarning, w.status, w.warn)
		}
	}
	for f, n := range sup.asked {
		if n != 1 {
			t.Errorf("supplier asked %d times for %s", n, f)
		}
	}
}

// An image mapped as several module entries (same code file and debug id)
// is symbolized relative to its first entry; Breakpad mode (Options.Mode)
// gives Breakpad's per-entry offsets.
func TestSplitImageSymbolBase(t *testing.T) {
	id := []byte{9, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.AddModule("/bin/node", exeBase, 0x1000).SetBuildID(id)
	b.AddModule("/bin/node", exeBase+0x2000, 0x10000).SetBuildID(id) // text
	b.AddModule("/bin/node", libBase, 0x10000).SetBuildID(id)        // a distant copy keeps its own base
	s := synthkit.NewStack(stackLo, 8)
	s.Append(64, 0)
	stack, _ := s.Finish()
	b.AddThread(1, amd64Context(exeBase+0x2100, stackLo, 0), stackLo, stack)
	b.AddThread(2, amd64Context(libBase+0x100, stackLo, 0), stackLo, stack)
	d := open(t, b)
	mods, _ := d.Modules()
	sup := &mapSupplier{texts: map[string]string{
		mods[0].DebugFile: "MODULE Linux x86_64 " + mods[0].DebugID + " node\nFUNC 100 100 0 wrong_base\nFUNC 2100 100 0 right_base\n",
	}}
	for _, c := range []struct {
		opts Options
		want string
	}{{Options{}, "right_base"}, {Options{Mode: walker.Breakpad}, "wrong_base"}} {
		st, err := Process(d, sup, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Threads[0].Frames[0].Function; got != c.want {
			t.Errorf("%+v: text entry frame named %q, want %q", c.opts, got, c.want)
		}
		if got := st.Threads[1].Frames[0].Function; got != "wrong_base" {
			t.Errorf("%+v: distant entry frame named %q, want wrong_base (from its own base)", c.opts, got)
		}
		if fr := st.Threads[0].Frames[0]; fr.ModuleOffset() != 0x100 {
			t.Errorf("module offset %#x, want 0x100 from the containing entry (printed as Breakpad does)", fr.ModuleOffset())
		}
	}
}

// A dump without a thread list cannot be processed.
func TestNoThreadList(t *testing.T) {
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.AddModule("/bin/exe", exeBase, 0x10000)
	_, err := Process(open(t, b), nil, Options{})
	if err == nil {
		t.Skip("builder wrote an empty thread list; nothing to check")
	}
	if err != ErrNoThreadList {
		t.Errorf("err %v, want ErrNoThreadList", err)
	}
}

// A symbol file with malformed lines still names frames from the records
// that parsed, and the module is reported as having corrupt symbols.
func TestCorruptSymbols(t *testing.T) {
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.AddModule("/bin/exe", exeBase, 0x10000).SetBuildID([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	s := synthkit.NewStack(stackLo, 8)
	s.Append(64, 0)
	stack, _ := s.Finish()
	b.AddThread(1, amd64Context(exeBase+0x180, stackLo, 0), stackLo, stack)
	d := open(t, b)
	mods, _ := d.Modules()
	sup := &mapSupplier{texts: map[string]string{
		mods[0].DebugFile: "MODULE Linux x86_64 " + mods[0].DebugID + " exe\nFUNC 100 100 0 main\nFUNC zz not a record\n",
	}}
	st, err := Process(d, sup, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := st.Threads[0].Frames[0]; f.Function != "main" {
		t.Errorf("frame 0 %q, want main from the records that parsed", f.Function)
	}
	ms := st.Modules[0]
	if ms.Symbols != walker.SymbolsCorrupt || !ms.CorruptSymbolsWarning || ms.NoSymbolsWarning {
		t.Errorf("status %v corrupt warning %v missing warning %v", ms.Symbols, ms.CorruptSymbolsWarning, ms.NoSymbolsWarning)
	}
}
