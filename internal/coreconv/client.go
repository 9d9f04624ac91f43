package coreconv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Client names the memory a crash reporter's client keeps in the minidumps
// it writes (core2md --like).
type Client int

const (
	// ClientAll keeps everything core2md writes: stacks, instruction
	// pointer windows of every thread, code windows.
	ClientAll Client = iota
	// ClientBreakpad keeps what Breakpad's Linux client keeps
	// (src/client/linux/minidump_writer/minidump_writer.cc): the thread
	// stacks and 256 bytes around the crashing thread's instruction
	// pointer ([pc-128, pc+128), kIPMemorySize), no other code.
	ClientBreakpad
	// ClientCrashpad keeps what Crashpad's Linux client keeps: the thread
	// stacks and, around each general register value and the pc of the
	// exception's context (snapshot/capture_memory.cc PointedToByContext,
	// called by exception_snapshot_linux.cc), [r-128, r+384) of readable
	// memory (kRegisterByteOffset 128, size 512), for values from 0x10000
	// to the top of the address space less 0x10000. The registers: rax, rbx,
	// rcx, rdx, rdi, rsi, rbp, r8-r15, rip (amd64); eax, ebx, ecx, edx,
	// edi, esi, ebp, eip (x86); r0-r10, pc (arm: CPUContextARM's regs[11]);
	// x0-x30, pc (arm64).
	ClientCrashpad
	// ClientStacks keeps the thread stacks only, as Windows'
	// MiniDumpNormal does: no code at all.
	ClientStacks
)

// ParseClient reads core2md's --like value.
func ParseClient(s string) (Client, error) {
	switch s {
	case "", "core2md":
		return ClientAll, nil
	case "breakpad":
		return ClientBreakpad, nil
	case "crashpad":
		return ClientCrashpad, nil
	case "stacks":
		return ClientStacks, nil
	}
	return ClientAll, fmt.Errorf("--like %q: want breakpad, crashpad or stacks", s)
}

// crashpadRegisters are the registers whose values Crashpad's
// PointedToByContext captures memory around, by architecture.
func crashpadRegisters(a minidump.Arch) []string {
	switch a {
	case minidump.ArchAMD64:
		return []string{"rax", "rbx", "rcx", "rdx", "rdi", "rsi", "rbp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"}
	case minidump.ArchX86:
		return []string{"eax", "ebx", "ecx", "edx", "edi", "esi", "ebp", "eip"}
	case minidump.ArchARM:
		return []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "pc"}
	case minidump.ArchARM64:
		regs := make([]string, 0, 32)
		for i := range 31 {
			regs = append(regs, fmt.Sprintf("x%d", i))
		}
		return append(regs, "pc")
	}
	return nil
}

// clientWindows returns the address ranges outside the stacks that client
// c keeps, from the crashing context ctx: Breakpad's instruction pointer
// window, Crashpad's register windows.
func clientWindows(c Client, ctx *minidump.Context, is64 bool) []interval {
	if ctx == nil {
		return nil
	}
	var out []interval
	switch c {
	case ClientBreakpad:
		if ip, ok := ctx.IP(); ok {
			lo := ip - 128
			if lo > ip {
				lo = 0
			}
			out = append(out, interval{lo, ip + 128})
		}
	case ClientCrashpad:
		top := uint64(1<<32 - 1)
		if is64 {
			top = ^uint64(0)
		}
		for _, name := range crashpadRegisters(ctx.Arch) {
			v, ok := ctx.Get(name)
			if !ok || v < 0x10000 || v > top-0x10000 {
				continue
			}
			out = append(out, interval{v - 128, v + 384})
		}
	}
	return out
}

// ErrNotShapeable is returned by Shape for a minidump it cannot rewrite.
var ErrNotShapeable = errors.New("coreconv: minidump cannot be client-shaped")

// Shape returns a copy of the minidump dump that holds only the memory
// client c keeps (ClientAll: dump itself): of the memory list's regions,
// the parts inside a thread's stack or a client window around the
// crashing context (clientWindows). Nothing is added: a window the dump
// does not hold stays out, so a twin shaped from a core2md dump holds
// exactly the client's memory where the dump covers it (Breakpad's
// 256-byte window lies inside core2md's instruction pointer window), and
// a subset of it where the client keeps more (Crashpad's 512-byte windows,
// of which a core2md dump holds only the code windows' 128 bytes). The
// dropped bytes are zeroed and the memory list stream is written anew at
// the end of the file; every other stream is as it was.
func Shape(dump []byte, c Client) ([]byte, error) {
	if c == ClientAll {
		return dump, nil
	}
	f, err := minidump.NewFile(bytes.NewReader(dump), int64(len(dump)))
	if err != nil {
		return nil, err
	}
	keep, err := clientKeep(f, c)
	if err != nil {
		return nil, err
	}
	entry, err := memoryListEntry(dump)
	if err != nil {
		return nil, err
	}
	size, rva := binary.LittleEndian.Uint32(dump[entry+4:]), binary.LittleEndian.Uint32(dump[entry+8:])
	if uint64(rva)+uint64(size) > uint64(len(dump)) || size < 4 {
		return nil, fmt.Errorf("%w: memory list at %#x, size %d, outside the file", ErrNotShapeable, rva, size)
	}
	list := dump[rva : rva+size]
	n := uint64(binary.LittleEndian.Uint32(list))
	if 4+16*n > uint64(len(list)) {
		return nil, fmt.Errorf("%w: memory list at %#x: %d descriptors in %d bytes", ErrNotShapeable, rva, n, size)
	}
	out := append([]byte(nil), dump...)
	var descs []byte
	count := uint32(0)
	for i := range n {
		d := list[4+16*i:]
		start := binary.LittleEndian.Uint64(d)
		dsize := uint64(binary.LittleEndian.Uint32(d[8:]))
		doff := uint64(binary.LittleEndian.Uint32(d[12:]))
		if doff+dsize > uint64(len(dump)) || start+dsize < start {
			return nil, fmt.Errorf("%w: memory descriptor %d at %#x outside the file", ErrNotShapeable, i, doff)
		}
		clear(out[doff : doff+dsize])
		for _, k := range keep {
			lo, hi := max(start, k.lo), min(start+dsize, k.hi)
			if lo >= hi {
				continue
			}
			off := doff + lo - start
			copy(out[off:off+hi-lo], dump[off:off+hi-lo])
			descs = binary.LittleEndian.AppendUint64(descs, lo)
			descs = binary.LittleEndian.AppendUint32(descs, uint32(hi-lo))
			descs = binary.LittleEndian.AppendUint32(descs, uint32(off))
			count++
		}
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	newRVA := uint64(len(out))
	if newRVA+4+uint64(len(descs)) > 1<<32-1 {
		return nil, fmt.Errorf("%w: file too large", ErrNotShapeable)
	}
	out = binary.LittleEndian.AppendUint32(out, count)
	out = append(out, descs...)
	binary.LittleEndian.PutUint32(out[entry+4:], uint32(4+len(descs)))
	binary.LittleEndian.PutUint32(out[entry+8:], uint32(newRVA))
	return out, nil
}

// clientKeep returns the sorted, disjoint address ranges client c keeps:
// every thread's stack and the client's windows around the crashing
// context (the exception's, else its thread's).
func clientKeep(f *minidump.File, c Client) ([]interval, error) {
	si, err := f.SystemInfo()
	if err != nil {
		return nil, err
	}
	threads, err := f.Threads()
	if err != nil {
		return nil, err
	}
	var keep []interval
	for _, t := range threads {
		if t.Stack.Size > 0 {
			keep = append(keep, interval{t.Stack.Start, t.Stack.Start + uint64(t.Stack.Size)})
		}
	}
	if e, err := f.Exception(); err == nil {
		ctx := e.Context
		if ctx == nil {
			for _, t := range threads {
				if t.ID == e.ThreadID {
					ctx = t.Context
				}
			}
		}
		is64 := si.Arch == minidump.ArchAMD64 || si.Arch == minidump.ArchARM64
		keep = append(keep, clientWindows(c, ctx, is64)...)
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].lo < keep[j].lo })
	return union(keep), nil
}

// memoryListEntry finds the directory entry of the (one) memory list
// stream. A dump with a 64-bit memory list (full-memory dumps) is refused:
// its memory is not a client's to shape.
func memoryListEntry(dump []byte) (int, error) {
	if len(dump) < 32 || string(dump[:4]) != "MDMP" {
		return 0, fmt.Errorf("%w: no minidump header", ErrNotShapeable)
	}
	count := uint64(binary.LittleEndian.Uint32(dump[8:]))
	dir := uint64(binary.LittleEndian.Uint32(dump[12:]))
	if dir+12*count > uint64(len(dump)) {
		return 0, fmt.Errorf("%w: stream directory at %#x: %d entries outside the file", ErrNotShapeable, dir, count)
	}
	found := -1
	for i := range count {
		e := int(dir + 12*i)
		switch binary.LittleEndian.Uint32(dump[e:]) {
		case 5: // MemoryListStream
			if found >= 0 {
				return 0, fmt.Errorf("%w: two memory list streams (directory entries at %#x and %#x)", ErrNotShapeable, found, e)
			}
			found = e
		case 9: // Memory64ListStream
			return 0, fmt.Errorf("%w: a 64-bit memory list (directory entry at %#x)", ErrNotShapeable, e)
		}
	}
	if found < 0 {
		return 0, fmt.Errorf("%w: no memory list stream", ErrNotShapeable)
	}
	return found, nil
}

// registerWindows returns Crashpad's windows around the registers of the
// crashing thread of core ([r-128, r+384)): the bytes the core holds from
// the window's start (or from r, when the start is not stored), else, in a
// module's executable segment, those its file holds; each taken from
// *budget.
func registerWindows(core *coredump.File, code *codeModules, budget *uint64) []chunk {
	t := core.Threads[core.CrashThread()]
	ctx := t.Context
	top := uint64(1<<32 - 1)
	if core.Is64 {
		top = ^uint64(0)
	}
	var out []chunk
	for _, name := range crashpadRegisters(core.Arch) {
		v, ok := ctx.Get(name)
		if !ok || v < 0x10000 || v > top-0x10000 {
			continue
		}
		lo := v - 128
		n := core.Readable(lo, 512)
		if n == 0 {
			lo = v
			n = core.Readable(lo, 384)
		}
		if n > 0 && n <= *budget {
			*budget -= n
			out = append(out, chunk{lo, lo + n, nil})
			continue
		}
		if seg := code.segmentAt(v); seg != nil {
			if c, ok := window(core, seg, v, 128, 384); ok && c.hi-c.lo <= *budget {
				*budget -= c.hi - c.lo
				out = append(out, c)
			}
		}
	}
	return out
}
