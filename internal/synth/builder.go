package synth

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf16"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Stream types, from Breakpad's minidump_format.h.
const (
	StreamThreadList         uint32 = 3
	StreamModuleList         uint32 = 4
	StreamMemoryList         uint32 = 5
	StreamException          uint32 = 6
	StreamSystemInfo         uint32 = 7
	StreamMemory64List       uint32 = 9
	StreamUnloadedModuleList uint32 = 14
	StreamMiscInfo           uint32 = 15
	StreamMemoryInfoList     uint32 = 16
	StreamThreadNameList     uint32 = 24

	StreamBreakpadInfo    uint32 = 0x47670001
	StreamAssertionInfo   uint32 = 0x47670002
	StreamLinuxCPUInfo    uint32 = 0x47670003
	StreamLinuxProcStatus uint32 = 0x47670004
	StreamLinuxLSBRelease uint32 = 0x47670005
	StreamLinuxCmdLine    uint32 = 0x47670006
	StreamLinuxEnviron    uint32 = 0x47670007
	StreamLinuxAuxv       uint32 = 0x47670008
	StreamLinuxMaps       uint32 = 0x47670009
	StreamLinuxDSODebug   uint32 = 0x4767000A
)

// OS is MINIDUMP_SYSTEM_INFO.PlatformId.
type OS uint32

// Platform ids; values from 0x8000 on are Breakpad's.
const (
	Windows OS = 2 // VER_PLATFORM_WIN32_NT
	Unix    OS = 0x8000
	MacOS   OS = 0x8101
	IOS     OS = 0x8102
	Linux   OS = 0x8201
	Solaris OS = 0x8202
	Android OS = 0x8203
	PS3     OS = 0x8204
	NaCl    OS = 0x8205
	Fuchsia OS = 0x8206
)

// Header and record signatures.
const (
	HeaderSignature    = 0x504d444d // "MDMP"
	HeaderVersion      = 0xa793
	CVSignaturePDB70   = 0x53445352 // "RSDS"
	CVSignaturePDB20   = 0x3031424e // "NB10"
	CVSignatureELF     = 0x4270454c // "BpEL"
	FixedFileSignature = 0xfeef04bd
)

// SystemInfo is MINIDUMP_SYSTEM_INFO.
type SystemInfo struct {
	Arch               minidump.Arch
	ProcessorLevel     uint16 // x86: family; ARM: architecture version
	ProcessorRevision  uint16 // x86: model<<8 | stepping
	NumberOfProcessors uint8
	ProductType        uint8
	MajorVersion       uint32
	MinorVersion       uint32
	BuildNumber        uint32
	OS                 OS
	CSDVersion         string // written as an MDString; Linux: uname -srvmo
	SuiteMask          uint16

	// x86 and amd64 CPU information.
	VendorID            string // 12 bytes, e.g. "GenuineIntel"
	VersionInformation  uint32 // cpuid 1: eax
	FeatureInformation  uint32 // cpuid 1: edx
	AMDExtendedFeatures uint32
	// ARM CPU information.
	ARMCPUID  uint32
	ARMHWCaps uint32
	// Other architectures: written when the fields above do not apply.
	ProcessorFeatures [2]uint64
}

// Exception is MINIDUMP_EXCEPTION_STREAM.
type Exception struct {
	ThreadID uint32
	Code     uint32
	Flags    uint32
	Record   uint64 // address of a nested exception record
	Address  uint64
	Params   []uint64 // at most 15 are written
	// Context is the crash context. When nil, the context of the thread
	// ThreadID is written; when that thread is absent, the location is empty.
	Context *minidump.Context
	Extra   ContextExtra
	// RawContext, when non-nil, is written instead of Context.
	RawContext []byte
}

// Thread is one MINIDUMP_THREAD with its context and stack.
type Thread struct {
	ID            uint32
	SuspendCount  uint32
	PriorityClass uint32
	Priority      uint32
	TEB           uint64
	Context       minidump.Context
	Extra         ContextExtra
	RawContext    []byte // written instead of Context when non-nil
	StackBase     uint64 // lowest address of Stack
	Stack         []byte
}

// FixedFileInfo is VS_FIXEDFILEINFO.
type FixedFileInfo struct {
	Signature, StructVersion           uint32
	FileVersionHi, FileVersionLo       uint32
	ProductVersionHi, ProductVersionLo uint32
	FileFlagsMask, FileFlags           uint32
	FileOS, FileType, FileSubtype      uint32
	FileDateHi, FileDateLo             uint32
}

// Module is one MINIDUMP_MODULE.
type Module struct {
	Base          uint64
	Size          uint32
	Checksum      uint32
	TimeDateStamp uint32
	Name          string
	Version       FixedFileInfo
	CodeView      []byte // a CodeView record; see CodeViewPDB70, CodeViewELF
	Misc          []byte // IMAGE_DEBUG_MISC record
}

// SetPDB70 sets a RSDS CodeView record.
func (m *Module) SetPDB70(guid [16]byte, age uint32, pdbName string) *Module {
	m.CodeView = CodeViewPDB70(guid, age, pdbName)
	return m
}

// SetBuildID sets Breakpad's BpEL CodeView record holding an ELF build id.
func (m *Module) SetBuildID(id []byte) *Module {
	m.CodeView = CodeViewELF(id)
	return m
}

// CodeViewPDB70 returns an RSDS record. guid is the GUID as stored in memory
// (Data1..Data3 little-endian, as in the PE debug directory).
func CodeViewPDB70(guid [16]byte, age uint32, pdbName string) []byte {
	b := make([]byte, 24, 24+len(pdbName)+1)
	binary.LittleEndian.PutUint32(b, CVSignaturePDB70)
	copy(b[4:20], guid[:])
	binary.LittleEndian.PutUint32(b[20:], age)
	b = append(b, pdbName...)
	return append(b, 0)
}

// CodeViewELF returns Breakpad's BpEL record holding an ELF build id.
func CodeViewELF(buildID []byte) []byte {
	b := make([]byte, 4, 4+len(buildID))
	binary.LittleEndian.PutUint32(b, CVSignatureELF)
	return append(b, buildID...)
}

// MiscInfo is MINIDUMP_MISC_INFO (Size 24) or MINIDUMP_MISC_INFO_2 (Size 44).
type MiscInfo struct {
	Size                      uint32 // 24 or 44; 0 means 44
	Flags1                    uint32
	ProcessID                 uint32
	ProcessCreateTime         uint32
	ProcessUserTime           uint32
	ProcessKernelTime         uint32
	ProcessorMaxMhz           uint32
	ProcessorCurrentMhz       uint32
	ProcessorMhzLimit         uint32
	ProcessorMaxIdleState     uint32
	ProcessorCurrentIdleState uint32
}

// MiscInfo flags1 bits.
const (
	MiscProcessID    = 0x1
	MiscProcessTimes = 0x2
	MiscPowerInfo    = 0x4
)

// BreakpadInfo validity bits.
const (
	BreakpadValidDumpThread       = 1
	BreakpadValidRequestingThread = 2
)

// BreakpadInfo is MINIDUMP_BREAKPAD_INFO: which of its thread ids are
// valid (BreakpadValid*), the thread that wrote the dump and the one that
// asked for it.
type BreakpadInfo struct{ Validity, DumpThread, RequestingThread uint32 }

type memoryRegion struct {
	addr uint64
	data []byte
}

// MemoryInfo is one MINIDUMP_MEMORY_INFO entry.
type MemoryInfo struct {
	Base, AllocationBase uint64
	AllocationProtection uint32
	Size                 uint64
	State, Protection    uint32 // e.g. 0x1000 MEM_COMMIT; 0x20 PAGE_EXECUTE_READ
	Type                 uint32 // e.g. 0x1000000 MEM_IMAGE
}

type rawStream struct {
	typ  uint32
	data []byte
}

type threadName struct {
	id   uint32
	name string
}

// Builder assembles a minidump. The zero value is not usable; call New.
type Builder struct {
	Sys            SystemInfo
	TimeDateStamp  uint32
	HeaderFlags    uint64
	OmitSystemInfo bool
	// StacksInMemoryList also lists each thread's stack in the MemoryList
	// (sharing the bytes), as Breakpad's clients and Windows do. Default true.
	StacksInMemoryList bool
	// Memory64 writes the memory regions as a Memory64List (full-memory
	// dump style) instead of a MemoryList.
	Memory64 bool
	// BreakpadInfo, when set, is written as the Breakpad info stream.
	BreakpadInfo *BreakpadInfo
	// MemoryInfo is written as the memory info list stream when not empty.
	MemoryInfo []MemoryInfo

	threads   []*Thread
	modules   []*Module
	memory    []memoryRegion
	exception *Exception
	misc      *MiscInfo
	names     []threadName
	unloaded  []UnloadedModule
	raw       []rawStream
	layout    map[uint32][2]uint32
}

// New returns a builder for a dump of arch written on os.
func New(arch minidump.Arch, os OS) *Builder {
	b := &Builder{StacksInMemoryList: true}
	b.Sys.Arch = arch
	b.Sys.OS = os
	b.Sys.NumberOfProcessors = 1
	return b
}

// SetCSDVersion sets the OS description string (Linux: uname -srvmo).
func (b *Builder) SetCSDVersion(s string) *Builder { b.Sys.CSDVersion = s; return b }

// AddThread adds a thread whose stack bytes start at stackBase. The returned
// Thread may be changed until Bytes is called.
func (b *Builder) AddThread(id uint32, ctx minidump.Context, stackBase uint64, stack []byte) *Thread {
	t := &Thread{ID: id, Context: ctx, StackBase: stackBase, Stack: stack}
	b.threads = append(b.threads, t)
	return t
}

// AddModule adds a module. The returned Module may be changed until Bytes is called.
func (b *Builder) AddModule(name string, base uint64, size uint32) *Module {
	m := &Module{Name: name, Base: base, Size: size}
	b.modules = append(b.modules, m)
	return m
}

// AddMemory adds a memory region.
func (b *Builder) AddMemory(addr uint64, data []byte) *Builder {
	b.memory = append(b.memory, memoryRegion{addr, data})
	return b
}

// SetException sets the exception stream. params beyond 15 are dropped.
func (b *Builder) SetException(threadID, code uint32, addr uint64, params ...uint64) *Exception {
	b.exception = &Exception{ThreadID: threadID, Code: code, Address: addr, Params: params}
	return b.exception
}

// SetMiscInfo sets the misc info stream.
func (b *Builder) SetMiscInfo(m MiscInfo) *Builder { b.misc = &m; return b }

// AddThreadName adds an entry to the thread name list.
func (b *Builder) AddThreadName(id uint32, name string) *Builder {
	b.names = append(b.names, threadName{id, name})
	return b
}

// UnloadedModule is one MINIDUMP_UNLOADED_MODULE.
type UnloadedModule struct {
	Base                    uint64
	Size                    uint32
	Checksum, TimeDateStamp uint32
	Name                    string
}

// AddUnloadedModule adds an entry to the unloaded module list stream.
func (b *Builder) AddUnloadedModule(m UnloadedModule) *Builder {
	b.unloaded = append(b.unloaded, m)
	return b
}

// AddStream adds a stream of any type with the given contents.
func (b *Builder) AddStream(typ uint32, data []byte) *Builder {
	b.raw = append(b.raw, rawStream{typ, data})
	return b
}

// SetLinuxMaps writes /proc/pid/maps' text as read.
func (b *Builder) SetLinuxMaps(s string) *Builder { return b.AddStream(StreamLinuxMaps, []byte(s)) }

// SetLinuxCmdLine writes the arguments NUL-separated, as /proc/pid/cmdline.
func (b *Builder) SetLinuxCmdLine(args ...string) *Builder {
	return b.AddStream(StreamLinuxCmdLine, nulJoin(args))
}

// SetLinuxAuxv writes raw auxv bytes.
func (b *Builder) SetLinuxAuxv(raw []byte) *Builder { return b.AddStream(StreamLinuxAuxv, raw) }

func nulJoin(s []string) []byte {
	var out []byte
	for _, a := range s {
		out = append(out, a...)
		out = append(out, 0)
	}
	return out
}

// StreamLocation reports where the last call to Bytes placed the first
// stream of type typ: its offset and size in the file.
func (b *Builder) StreamLocation(typ uint32) (rva, size uint32, ok bool) {
	l, ok := b.layout[typ]
	return l[0], l[1], ok
}

// writer is an append-only buffer with 32-bit RVAs.
type writer struct {
	buf []byte
	err error
}

func (w *writer) align(n int) {
	for len(w.buf)%n != 0 {
		w.buf = append(w.buf, 0)
	}
}

// reserve appends n zero bytes and returns their offset.
func (w *writer) reserve(n int) uint32 {
	w.align(4)
	off := len(w.buf)
	if uint64(off)+uint64(n) > math.MaxUint32 {
		if w.err == nil {
			w.err = fmt.Errorf("synth: dump larger than 4 GiB")
		}
		return 0
	}
	w.buf = append(w.buf, make([]byte, n)...)
	return uint32(off)
}

func (w *writer) data(p []byte) (rva, size uint32) {
	off := w.reserve(len(p))
	if w.err == nil {
		copy(w.buf[off:], p)
	}
	return off, uint32(len(p))
}

// mdString writes an MDString (byte length, UTF-16, NUL terminator).
func (w *writer) mdString(s string) uint32 {
	u := utf16.Encode([]rune(s))
	off := w.reserve(4 + 2*len(u) + 2)
	if w.err != nil {
		return 0
	}
	binary.LittleEndian.PutUint32(w.buf[off:], uint32(2*len(u)))
	for i, c := range u {
		binary.LittleEndian.PutUint16(w.buf[int(off)+4+2*i:], c)
	}
	return off
}

func (w *writer) put32(off uint32, v uint32) {
	if w.err == nil {
		binary.LittleEndian.PutUint32(w.buf[off:], v)
	}
}

func (w *writer) put64(off uint32, v uint64) {
	if w.err == nil {
		binary.LittleEndian.PutUint64(w.buf[off:], v)
	}
}

func (w *writer) put16(off uint32, v uint16) {
	if w.err == nil {
		binary.LittleEndian.PutUint16(w.buf[off:], v)
	}
}

type dirEntry struct {
	typ       uint32
	rva, size uint32
}

// Bytes lays out the dump. Streams appear in the directory in this order:
// SystemInfo, ThreadList, ModuleList, MemoryList, Exception, MiscInfo,
// BreakpadInfo, ThreadNameList, MemoryInfoList, UnloadedModuleList, then
// added streams in the order added.
func (b *Builder) Bytes() ([]byte, error) {
	w := &writer{}
	nStreams := b.streamCount()
	hdr := w.reserve(32)
	dirOff := w.reserve(12 * nStreams)
	w.put32(hdr, HeaderSignature)
	w.put32(hdr+4, HeaderVersion)
	w.put32(hdr+8, uint32(nStreams))
	w.put32(hdr+12, dirOff)
	w.put32(hdr+20, b.TimeDateStamp)
	w.put64(hdr+24, b.HeaderFlags)

	var dir []dirEntry
	if !b.OmitSystemInfo {
		rva := b.writeSystemInfo(w)
		dir = append(dir, dirEntry{StreamSystemInfo, rva, 56})
	}
	dir, threadCtx, stacks, err := b.writeThreads(w, dir)
	if err != nil {
		return nil, err
	}
	dir = b.writeModules(w, dir)
	dir = b.writeMemory(w, dir, stacks)
	if dir, err = b.writeException(w, dir, threadCtx); err != nil {
		return nil, err
	}
	dir = b.writeMisc(w, dir)
	dir = b.writeBreakpadInfo(w, dir)
	dir = b.writeThreadNames(w, dir)
	dir = b.writeMemoryInfo(w, dir)
	dir = b.writeUnloaded(w, dir)
	for _, r := range b.raw {
		rva, size := w.data(r.data)
		dir = append(dir, dirEntry{r.typ, rva, size})
	}

	if w.err != nil {
		return nil, w.err
	}
	b.layout = map[uint32][2]uint32{}
	for i, d := range dir {
		e := dirOff + uint32(12*i)
		w.put32(e, d.typ)
		w.put32(e+4, d.size)
		w.put32(e+8, d.rva)
		if _, seen := b.layout[d.typ]; !seen {
			b.layout[d.typ] = [2]uint32{d.rva, d.size}
		}
	}
	return w.buf, nil
}

// streamCount is the number of streams Bytes writes.
func (b *Builder) streamCount() int {
	nStreams := 0
	if !b.OmitSystemInfo {
		nStreams++
	}
	if len(b.threads) > 0 {
		nStreams++
	}
	if len(b.modules) > 0 {
		nStreams++
	}
	if len(b.memory) > 0 || (b.StacksInMemoryList && len(b.threads) > 0) {
		nStreams++
	}
	for _, p := range []bool{b.exception != nil, b.misc != nil, b.BreakpadInfo != nil, len(b.names) > 0, len(b.MemoryInfo) > 0, len(b.unloaded) > 0} {
		if p {
			nStreams++
		}
	}
	return nStreams + len(b.raw)
}

// stackLoc is where a thread's stack was written.
type stackLoc struct{ rva, size uint32 }

// writeThreads writes the thread list with each thread's context and
// stack; it returns the first context written for each thread id (the
// exception's, when it has none of its own) and the stacks' places.
func (b *Builder) writeThreads(w *writer, dir []dirEntry) ([]dirEntry, map[uint32][2]uint32, []stackLoc, error) {
	threadCtx := map[uint32][2]uint32{}
	stacks := make([]stackLoc, len(b.threads))
	if len(b.threads) == 0 {
		return dir, threadCtx, stacks, nil
	}
	list := w.reserve(4 + 48*len(b.threads))
	w.put32(list, uint32(len(b.threads)))
	for i, t := range b.threads {
		raw := t.RawContext
		if raw == nil {
			var err error
			raw, err = EncodeContext(t.Context, t.Extra)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("thread %d: %w", t.ID, err)
			}
		}
		crva, csize := w.data(raw)
		if _, dup := threadCtx[t.ID]; !dup {
			threadCtx[t.ID] = [2]uint32{crva, csize}
		}
		srva, ssize := w.data(t.Stack)
		stacks[i] = stackLoc{srva, ssize}
		e := list + 4 + uint32(48*i)
		w.put32(e, t.ID)
		w.put32(e+4, t.SuspendCount)
		w.put32(e+8, t.PriorityClass)
		w.put32(e+12, t.Priority)
		w.put64(e+16, t.TEB)
		w.put64(e+24, t.StackBase)
		w.put32(e+32, ssize)
		w.put32(e+36, srva)
		w.put32(e+40, csize)
		w.put32(e+44, crva)
	}
	dir = append(dir, dirEntry{StreamThreadList, list, uint32(4 + 48*len(b.threads))})
	return dir, threadCtx, stacks, nil
}

// writeModules writes the module list with names, CodeView and misc records.
func (b *Builder) writeModules(w *writer, dir []dirEntry) []dirEntry {
	if len(b.modules) == 0 {
		return dir
	}
	const modSize = 108
	list := w.reserve(4 + modSize*len(b.modules))
	w.put32(list, uint32(len(b.modules)))
	for i, m := range b.modules {
		e := list + 4 + uint32(modSize*i)
		w.put64(e, m.Base)
		w.put32(e+8, m.Size)
		w.put32(e+12, m.Checksum)
		w.put32(e+16, m.TimeDateStamp)
		w.put32(e+20, w.mdString(m.Name))
		v := m.Version
		for j, x := range []uint32{v.Signature, v.StructVersion, v.FileVersionHi, v.FileVersionLo,
			v.ProductVersionHi, v.ProductVersionLo, v.FileFlagsMask, v.FileFlags, v.FileOS,
			v.FileType, v.FileSubtype, v.FileDateHi, v.FileDateLo} {
			w.put32(e+24+uint32(4*j), x)
		}
		if m.CodeView != nil {
			rva, size := w.data(m.CodeView)
			w.put32(e+76, size)
			w.put32(e+80, rva)
		}
		if m.Misc != nil {
			rva, size := w.data(m.Misc)
			w.put32(e+84, size)
			w.put32(e+88, rva)
		}
	}
	dir = append(dir, dirEntry{StreamModuleList, list, uint32(4 + modSize*len(b.modules))})
	return dir
}

// writeMemory writes the memory list, or Memory64List, of the added
// regions and, with StacksInMemoryList, the threads' stacks.
func (b *Builder) writeMemory(w *writer, dir []dirEntry, stacks []stackLoc) []dirEntry {
	type memLoc struct {
		addr      uint64
		rva, size uint32
	}
	var mems []memLoc
	if b.StacksInMemoryList {
		for i, t := range b.threads {
			mems = append(mems, memLoc{t.StackBase, stacks[i].rva, stacks[i].size})
		}
	}
	if b.Memory64 {
		// Memory64List data must be contiguous, after the list itself.
		if len(b.memory) > 0 || len(mems) > 0 {
			n := len(b.memory) + len(mems)
			list := w.reserve(16 + 16*n)
			w.put64(list, uint64(n))
			w.align(8)
			base := uint32(len(w.buf))
			w.put64(list+8, uint64(base))
			i := 0
			for _, m := range mems {
				w.put64(list+16+uint32(16*i), m.addr)
				w.put64(list+24+uint32(16*i), uint64(m.size))
				w.buf = append(w.buf, w.buf[m.rva:m.rva+m.size]...)
				i++
			}
			for _, m := range b.memory {
				w.put64(list+16+uint32(16*i), m.addr)
				w.put64(list+24+uint32(16*i), uint64(len(m.data)))
				w.buf = append(w.buf, m.data...)
				i++
			}
			if uint64(len(w.buf)) > math.MaxUint32 && w.err == nil {
				w.err = fmt.Errorf("synth: dump larger than 4 GiB")
			}
			dir = append(dir, dirEntry{StreamMemory64List, list, uint32(16 + 16*n)})
		}
	} else if len(b.memory) > 0 || len(mems) > 0 {
		for _, m := range b.memory {
			rva, size := w.data(m.data)
			mems = append(mems, memLoc{m.addr, rva, size})
		}
		list := w.reserve(4 + 16*len(mems))
		w.put32(list, uint32(len(mems)))
		for i, m := range mems {
			e := list + 4 + uint32(16*i)
			w.put64(e, m.addr)
			w.put32(e+8, m.size)
			w.put32(e+12, m.rva)
		}
		dir = append(dir, dirEntry{StreamMemoryList, list, uint32(4 + 16*len(mems))})
	}
	return dir
}

// writeException writes the exception stream with its context: its own, or
// else its thread's.
func (b *Builder) writeException(w *writer, dir []dirEntry, threadCtx map[uint32][2]uint32) ([]dirEntry, error) {
	e := b.exception
	if e == nil {
		return dir, nil
	}
	var crva, csize uint32
	switch {
	case e.RawContext != nil:
		crva, csize = w.data(e.RawContext)
	case e.Context != nil:
		raw, err := EncodeContext(*e.Context, e.Extra)
		if err != nil {
			return nil, fmt.Errorf("exception: %w", err)
		}
		crva, csize = w.data(raw)
	default:
		if l, ok := threadCtx[e.ThreadID]; ok {
			crva, csize = l[0], l[1]
		}
	}
	const size = 168
	s := w.reserve(size)
	w.put32(s, e.ThreadID)
	w.put32(s+8, e.Code)
	w.put32(s+12, e.Flags)
	w.put64(s+16, e.Record)
	w.put64(s+24, e.Address)
	n := len(e.Params)
	if n > 15 {
		n = 15
	}
	w.put32(s+32, uint32(n))
	for i := 0; i < n; i++ {
		w.put64(s+40+uint32(8*i), e.Params[i])
	}
	w.put32(s+160, csize)
	w.put32(s+164, crva)
	dir = append(dir, dirEntry{StreamException, s, size})
	return dir, nil
}

// writeMisc writes the MiscInfo stream, of the size set (44 bytes by default).
func (b *Builder) writeMisc(w *writer, dir []dirEntry) []dirEntry {
	m := b.misc
	if m == nil {
		return dir
	}
	size := m.Size
	if size == 0 {
		size = 44
	}
	vals := []uint32{size, m.Flags1, m.ProcessID, m.ProcessCreateTime, m.ProcessUserTime, m.ProcessKernelTime,
		m.ProcessorMaxMhz, m.ProcessorCurrentMhz, m.ProcessorMhzLimit, m.ProcessorMaxIdleState, m.ProcessorCurrentIdleState}
	s := w.reserve(int(size))
	for i, v := range vals {
		if uint32(4*i+4) <= size {
			w.put32(s+uint32(4*i), v)
		}
	}
	dir = append(dir, dirEntry{StreamMiscInfo, s, size})
	return dir
}

// writeBreakpadInfo writes the BreakpadInfo stream.
func (b *Builder) writeBreakpadInfo(w *writer, dir []dirEntry) []dirEntry {
	bp := b.BreakpadInfo
	if bp == nil {
		return dir
	}
	s := w.reserve(12)
	w.put32(s, bp.Validity)
	w.put32(s+4, bp.DumpThread)
	w.put32(s+8, bp.RequestingThread)
	dir = append(dir, dirEntry{StreamBreakpadInfo, s, 12})
	return dir
}

// writeThreadNames writes the thread name list.
func (b *Builder) writeThreadNames(w *writer, dir []dirEntry) []dirEntry {
	if len(b.names) == 0 {
		return dir
	}
	rvas := make([]uint32, len(b.names))
	for i, n := range b.names {
		rvas[i] = w.mdString(n.name)
	}
	s := w.reserve(4 + 12*len(b.names))
	w.put32(s, uint32(len(b.names)))
	for i, n := range b.names {
		w.put32(s+4+uint32(12*i), n.id)
		w.put64(s+8+uint32(12*i), uint64(rvas[i]))
	}
	dir = append(dir, dirEntry{StreamThreadNameList, s, uint32(4 + 12*len(b.names))})
	return dir
}

// writeMemoryInfo writes the memory info list.
func (b *Builder) writeMemoryInfo(w *writer, dir []dirEntry) []dirEntry {
	if len(b.MemoryInfo) == 0 {
		return dir
	}
	const hdr, entry = 16, 48
	s := w.reserve(hdr + entry*len(b.MemoryInfo))
	w.put32(s, hdr)
	w.put32(s+4, entry)
	w.put64(s+8, uint64(len(b.MemoryInfo)))
	for i, mi := range b.MemoryInfo {
		e := s + hdr + uint32(entry*i)
		w.put64(e, mi.Base)
		w.put64(e+8, mi.AllocationBase)
		w.put32(e+16, mi.AllocationProtection)
		w.put64(e+24, mi.Size)
		w.put32(e+32, mi.State)
		w.put32(e+36, mi.Protection)
		w.put32(e+40, mi.Type)
	}
	dir = append(dir, dirEntry{StreamMemoryInfoList, s, uint32(hdr + entry*len(b.MemoryInfo))})
	return dir
}

// writeUnloaded writes the unloaded module list.
func (b *Builder) writeUnloaded(w *writer, dir []dirEntry) []dirEntry {
	if len(b.unloaded) == 0 {
		return dir
	}
	const hdr, entry = 12, 24
	names := make([]uint32, len(b.unloaded))
	for i, m := range b.unloaded {
		names[i] = w.mdString(m.Name)
	}
	s := w.reserve(hdr + entry*len(b.unloaded))
	w.put32(s, hdr)
	w.put32(s+4, entry)
	w.put32(s+8, uint32(len(b.unloaded)))
	for i, m := range b.unloaded {
		e := s + hdr + uint32(entry*i)
		w.put64(e, m.Base)
		w.put32(e+8, m.Size)
		w.put32(e+12, m.Checksum)
		w.put32(e+16, m.TimeDateStamp)
		w.put32(e+20, names[i])
	}
	dir = append(dir, dirEntry{StreamUnloadedModuleList, s, uint32(hdr + entry*len(b.unloaded))})
	return dir
}

func (b *Builder) writeSystemInfo(w *writer) uint32 {
	s := b.Sys
	csd := w.mdString(s.CSDVersion)
	off := w.reserve(56)
	w.put16(off, uint16(s.Arch))
	w.put16(off+2, s.ProcessorLevel)
	w.put16(off+4, s.ProcessorRevision)
	if w.err == nil {
		w.buf[off+6] = s.NumberOfProcessors
		w.buf[off+7] = s.ProductType
	}
	w.put32(off+8, s.MajorVersion)
	w.put32(off+12, s.MinorVersion)
	w.put32(off+16, s.BuildNumber)
	w.put32(off+20, uint32(s.OS))
	w.put32(off+24, csd)
	w.put16(off+28, s.SuiteMask)
	cpu := off + 32
	switch s.Arch {
	case minidump.ArchX86, minidump.ArchAMD64, minidump.ArchX86Win64:
		if w.err == nil {
			copy(w.buf[cpu:cpu+12], s.VendorID)
		}
		w.put32(cpu+12, s.VersionInformation)
		w.put32(cpu+16, s.FeatureInformation)
		w.put32(cpu+20, s.AMDExtendedFeatures)
	case minidump.ArchARM:
		w.put32(cpu, s.ARMCPUID)
		w.put32(cpu+4, s.ARMHWCaps)
	default:
		w.put64(cpu, s.ProcessorFeatures[0])
		w.put64(cpu+8, s.ProcessorFeatures[1])
	}
	return off
}

// ModuleAt returns the module added with base address base, or nil.
func (b *Builder) ModuleAt(base uint64) *Module {
	for _, m := range b.modules {
		if m.Base == base {
			return m
		}
	}
	return nil
}

// Modules returns the modules added so far.
func (b *Builder) Modules() []*Module { return b.modules }
