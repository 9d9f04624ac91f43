package hostile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Microdump returns an Android ARM microdump with n module lines in
// descending address order (each new module below every stored one: the
// worst order for insertion into a sorted list).
func Microdump(n int) []byte {
	var b strings.Builder
	const tag = microdumpTag
	line := func(s string) { b.WriteString(tag + s + "\n") }
	microdumpStart(&b)
	for i := range n {
		base := uint64(0x80000000) - uint64(i+1)*0x1000
		line(fmt.Sprintf("M %08X 00000000 00001000 %032X0 lib%d.so", base, i, i))
	}
	line("-----END BREAKPAD MICRODUMP-----")
	return []byte(b.String())
}

// microdumpTag starts every line of the microdumps made here (logcat's).
const microdumpTag = "F/google-breakpad(1): "

// microdumpStart writes a microdump's first lines: the start marker, the
// OS, a 64-byte stack and an all-zero ARM context.
func microdumpStart(b *strings.Builder) {
	for _, s := range []string{
		"-----BEGIN BREAKPAD MICRODUMP-----",
		"O A arm 04 armv7l hostile",
		"S 0 7FFF0000 7FFF0000 00001000",
		"S 7FFF0000 " + strings.Repeat("00", 64),
		"C " + strings.Repeat("00", 368),
	} {
		b.WriteString(microdumpTag + s + "\n")
	}
}

// dump returns a Linux amd64 dump with one thread whose stack holds a few
// words, for the module cases.
func dump(os synth.OS) *synth.Builder {
	ctx := minidump.NewContext(minidump.ArchAMD64)
	ctx.SetIP(0x1000)
	ctx.SetSP(0x7fff0000)
	b := synth.New(minidump.ArchAMD64, os)
	b.AddThread(1, ctx, 0x7fff0000, make([]byte, 64))
	b.SetException(1, 11, 0)
	return b
}

// ModuleList returns a Linux amd64 dump with n modules in descending
// address order.
func ModuleList(n int) ([]byte, error) {
	b := dump(synth.Linux)
	for i := range n {
		base := uint64(0x7f0000000000) - uint64(i+1)*0x10000
		b.AddModule(fmt.Sprintf("/lib/m%d.so", i), base, 0x10000)
	}
	return b.Bytes()
}

// UnloadedModules returns a Windows amd64 dump with n unloaded modules in
// descending address order.
func UnloadedModules(n int) ([]byte, error) {
	b := dump(synth.Windows)
	for i := range n {
		base := uint64(0x7f0000000000) - uint64(i+1)*0x10000
		b.AddUnloadedModule(synth.UnloadedModule{Base: base, Size: 0x10000, Name: fmt.Sprintf("u%d.dll", i)})
	}
	return b.Bytes()
}

// FrameChain returns a Linux amd64 dump whose threads all point at one
// stack holding a frame-pointer chain depth frames deep: the stack bytes
// are in the file once, the frames are walked once per thread.
func FrameChain(threads, depth int) ([]byte, error) {
	const stackBase = 0x7ff000000000
	const code = 0x400000
	stack := make([]byte, 16*depth+16)
	for i := range depth {
		binary.LittleEndian.PutUint64(stack[16*i:], stackBase+uint64(16*(i+1)))
		binary.LittleEndian.PutUint64(stack[16*i+8:], code+0x1000+uint64(i%0x1000))
	}
	ctx := minidump.NewContext(minidump.ArchAMD64)
	ctx.SetIP(code + 0x100)
	ctx.SetSP(stackBase)
	ctx.Set("rbp", stackBase)
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.StacksInMemoryList = false
	b.AddModule("/bin/app", code, 0x100000).SetBuildID(bytes.Repeat([]byte{0x11}, 20))
	for i := range threads {
		var s []byte
		if i == 0 {
			s = stack
		}
		b.AddThread(uint32(i+1), ctx, stackBase, s)
	}
	b.SetException(1, 11, 0)
	data, err := b.Bytes()
	if err != nil {
		return nil, err
	}
	return shareStack(b, data, threads)
}

// shareStack points every thread's stack descriptor at the first thread's.
func shareStack(b *synth.Builder, data []byte, threads int) ([]byte, error) {
	rva, _, ok := b.StreamLocation(synth.StreamThreadList)
	if !ok {
		return nil, fmt.Errorf("hostile: no thread list")
	}
	first := data[rva+4+32 : rva+4+40] // MINIDUMP_THREAD.Stack.Memory of thread 0
	for i := 1; i < threads; i++ {
		e := rva + 4 + uint32(48*i)
		copy(data[e+32:e+40], first)
	}
	return data, nil
}

// OverlappingMemory returns a Linux amd64 dump with n memory list
// descriptors covering the same range.
func OverlappingMemory(n int) ([]byte, error) {
	b := dump(synth.Linux)
	b.StacksInMemoryList = false // the descriptors are the n regions alone
	region := make([]byte, 16)
	for range n {
		b.AddMemory(0x10000000, region)
	}
	return b.Bytes()
}

// BombDebugFile and BombDebugID name the module of BombDump, whose symbols
// SymbolBomb writes: the symbol path is
// BombDebugFile/BombDebugID/app.sym(.gz|.zst).
const (
	BombDebugFile = "app.pdb"
	BombDebugID   = "111111111111111111111111111111111"
)

// BombDump returns a Windows amd64 dump whose crashing frame is in the
// module app.pdb (BombDebugID), so that its symbols are loaded.
func BombDump() ([]byte, error) {
	ctx := minidump.NewContext(minidump.ArchAMD64)
	ctx.SetIP(0x401000)
	ctx.SetSP(0x7fff0000)
	b := synth.New(minidump.ArchAMD64, synth.Windows)
	b.AddThread(1, ctx, 0x7fff0000, make([]byte, 64))
	b.SetException(1, 0xc0000005, 0)
	var guid [16]byte
	for i := range guid {
		guid[i] = 0x11
	}
	b.AddModule(`C:\app.exe`, 0x400000, 0x10000).SetPDB70(guid, 1, BombDebugFile)
	return b.Bytes()
}

// SymbolBomb writes to w a symbol file for BombDump's module that
// decompresses to about size bytes: a MODULE line, a FUNC, then the same
// line record repeated (well-formed, so the whole file is indexed).
// Compress w's output to make the bomb: it compresses about a
// thousandfold with gzip, far more with zstd.
func SymbolBomb(w io.Writer, size int64) error {
	head := "MODULE windows x86_64 " + BombDebugID + " " + BombDebugFile + "\nFUNC 1000 10 0 bomb\n"
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	line := "1000 10 1 0\n"
	block := []byte(strings.Repeat(line, 64<<10/len(line)))
	for n := int64(len(head)); n < size; n += int64(len(block)) {
		if _, err := w.Write(block); err != nil {
			return err
		}
	}
	return nil
}

// UnreadableStacks returns a Linux amd64 dump with n threads whose stack
// descriptors point past the end of the file.
func UnreadableStacks(n int) ([]byte, error) {
	ctx := minidump.NewContext(minidump.ArchAMD64)
	ctx.SetIP(0x1000)
	ctx.SetSP(0x7fff0000)
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.StacksInMemoryList = false
	for i := range n {
		b.AddThread(uint32(i+1), ctx, 0x7fff0000, make([]byte, 16))
	}
	data, err := b.Bytes()
	if err != nil {
		return nil, err
	}
	rva, _, _ := b.StreamLocation(synth.StreamThreadList)
	for i := range n {
		e := rva + 4 + uint32(48*i)
		binary.LittleEndian.PutUint32(data[e+36:], 0xfffffff0) // Stack.Memory.Rva
	}
	return data, nil
}

// BadModuleNames returns a Linux amd64 dump with n modules whose names lie
// past the end of the file: one error per module.
func BadModuleNames(n int) ([]byte, error) {
	b := dump(synth.Linux)
	for i := range n {
		b.AddModule(fmt.Sprintf("/lib/m%d.so", i), uint64(0x7f0000000000)+uint64(i)*0x10000, 0x10000)
	}
	data, err := b.Bytes()
	if err != nil {
		return nil, err
	}
	rva, _, ok := b.StreamLocation(synth.StreamModuleList)
	if !ok {
		return nil, fmt.Errorf("hostile: no module list")
	}
	for i := range n {
		binary.LittleEndian.PutUint32(data[rva+4+uint32(108*i)+20:], 0xfffffff0) // ModuleNameRva
	}
	return data, nil
}
