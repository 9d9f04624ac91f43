package processor

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/synthkit"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// fpChainBase is where fpChain's stack starts.
const fpChainBase = 0x7ffe0000

// fpChain is a stack at fpChainBase of word-sized words holding a
// three-frame frame-pointer chain (return addresses 0x401200, 0x401300);
// f0 is frame 0's frame pointer.
func fpChain(t *testing.T, word int) (stack []byte, f0 uint64) {
	t.Helper()
	s := synthkit.NewStack(fpChainBase, word)
	s.Word(0).Word(0)
	s.Mark("f0").WordLabel("f1", 0).Word(0x401200)
	s.Word(0).Mark("f1").WordLabel("f2", 0).Word(0x401300)
	s.Mark("f2").Word(0).Word(0)
	stack, err := s.Finish()
	if err != nil {
		t.Fatal(err)
	}
	f0, _ = s.Label("f0")
	return stack, f0
}

// stackDump is a Linux amd64 dump whose crashed thread has a three-frame
// frame-pointer chain. patch rewrites the thread's stack descriptor
// (start, size, RVA) in the finished file; memory64 puts the stack bytes in a
// Memory64ListStream instead of a MemoryListStream.
func stackDump(t *testing.T, memory64 bool, patch func(desc []byte)) *minidump.File {
	t.Helper()
	const base = fpChainBase
	stack, fp := fpChain(t, 8)
	ctx := minidump.NewContext(minidump.ArchAMD64)
	ctx.SetIP(0x401100)
	ctx.SetSP(base)
	ctx.Set("rbp", fp)
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.Memory64 = memory64
	b.AddThread(1, ctx, base, stack)
	b.AddModule("/bin/prog", 0x400000, 0x10000).SetBuildID(bytes.Repeat([]byte{0x11}, 20))
	b.SetException(1, 11, 0)
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	rva, _, ok := b.StreamLocation(synth.StreamThreadList)
	if !ok {
		t.Fatal("no thread list")
	}
	patch(data[rva+4+24 : rva+4+40])
	return openBytes(t, data)
}

// TestStackMemoryFallbacks: where a thread's stack descriptor does not hold
// the bytes, Breakpad (minidump_processor.cc) looks up the descriptor's start
// address in the MemoryListStream only. The oracle binary, run on the same
// layouts by internal/testkit/difftest (flavors linux-amd64-rva0,
// windows-amd64-fullmem, linux-arm64-nostackdesc), walks only the context
// frame when the bytes are in a Memory64ListStream (Windows full-memory
// dumps write RVA 0 descriptors) or the descriptor is all zeros. By default
// we also use the Memory64ListStream and, failing the descriptor, the region
// holding the stack pointer; Breakpad mode restores Breakpad's rule.
func TestStackMemoryFallbacks(t *testing.T) {
	rva0 := func(d []byte) { binary.LittleEndian.PutUint32(d[12:], 0) }
	empty := func(d []byte) { clear(d) }
	for _, tc := range []struct {
		name               string
		memory64           bool
		patch              func([]byte)
		breakpad, extended int // frames walked
	}{
		{"rva0 in MemoryList", false, rva0, 3, 3},
		{"rva0 in Memory64List", true, rva0, 1, 3},
		{"empty descriptor", false, empty, 1, 3},
		{"empty descriptor, Memory64List", true, empty, 1, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, compat := range []bool{true, false} {
				d := stackDump(t, tc.memory64, tc.patch)
				st, err := Process(d, nil, Options{Mode: modeOf(compat)})
				if err != nil {
					t.Fatal(err)
				}
				want := tc.extended
				if compat {
					want = tc.breakpad
				}
				if got := len(st.Threads[0].Frames); got != want {
					t.Errorf("Breakpad mode %v: %d frames, want %d", compat, got, want)
				}
			}
		})
	}
}

// modeOf returns walker.Breakpad when breakpad is set, else walker.Extended.
func modeOf(breakpad bool) walker.Mode {
	if breakpad {
		return walker.Breakpad
	}
	return walker.Extended
}
