package coredump

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Limits on what NewFile reads from a core.
const (
	MaxNoteBytes    = 64 << 20 // all PT_NOTE segments together
	MaxProgHeaders  = 1 << 20
	maxNTFileCount  = 1 << 20
	elfHeaderSize64 = 64
	elfHeaderSize32 = 52
)

// Note types.
const (
	NTPRStatus = 1
	NTFPRegSet = 2
	NTPRPSInfo = 3
	NTAuxv     = 6
	NTSigInfo  = 0x53494749
	NTFile     = 0x46494c45
)

// ELF machines this package decodes.
const (
	emI386    = 3
	emARM     = 40
	emX86_64  = 62
	emAArch64 = 183
)

// ErrNotCore is returned (wrapped) for an ELF file that is not a core file.
var ErrNotCore = errors.New("not an ELF core file")

// ErrUnsupportedMachine is returned (wrapped) for a core of an architecture
// other than amd64, i386, aarch64 and 32-bit ARM.
var ErrUnsupportedMachine = errors.New("unsupported core architecture")

// FormatError reports a malformed core at a file offset.
type FormatError struct {
	Off int64
	Msg string
}

func (e *FormatError) Error() string { return fmt.Sprintf("coredump: %s at offset %#x", e.Msg, e.Off) }

// Segment is a PT_LOAD program header: memory [Vaddr, Vaddr+Memsz), of which
// the first Filesz bytes are stored at file offset Off.
type Segment struct {
	Vaddr, Memsz, Filesz, Off uint64
	Flags                     uint32 // PF_X=1, PF_W=2, PF_R=4
}

// SigInfo is the start of a siginfo_t.
type SigInfo struct {
	Signo, Errno, Code int32
	Addr               uint64 // si_addr; meaningful for fault signals
}

// Thread is one NT_PRSTATUS note.
type Thread struct {
	PID    uint32
	CurSig uint16
	// Context holds the general registers by minidump register index.
	Context minidump.Context
	// Status is eflags (x86, amd64) or cpsr/pstate (arm, arm64).
	Status uint64
	// Segment registers of x86 and amd64.
	CS, DS, ES, FS, GS, SS uint16
	// SigInfo is the NT_SIGINFO note that follows this thread's NT_PRSTATUS, if any.
	SigInfo *SigInfo
}

// MappedFile is one NT_FILE entry.
type MappedFile struct {
	Start, End uint64
	Offset     uint64 // file offset in bytes
	Name       string
}

// PSInfo is the part of NT_PRPSINFO this package reads.
type PSInfo struct {
	PID    uint32 // process id (the thread group leader)
	FName  string // executable name, at most 16 bytes
	PSArgs string // command line, at most 80 bytes, space separated
}

// File is a parsed core file.
type File struct {
	Arch     minidump.Arch
	Is64     bool
	Segments []Segment // sorted by Vaddr
	Threads  []Thread  // in note order
	Auxv     []byte    // raw NT_AUXV
	Files    []MappedFile
	PSInfo   *PSInfo
	PageSize uint64 // from NT_FILE; 0 when absent
	r        io.ReaderAt
	size     int64
	closer   io.Closer
}

// Open opens and parses a core file.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	cf, err := NewFile(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	cf.closer = f
	return cf, nil
}

// Close closes the file opened by Open.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// fields reads little-endian fields of a byte slice whose length the caller checked.
type fields struct {
	b    []byte
	is64 bool
}

func (d fields) u16(off int) uint16 { return binary.LittleEndian.Uint16(d.b[off:]) }
func (d fields) u32(off int) uint32 { return binary.LittleEndian.Uint32(d.b[off:]) }
func (d fields) u64(off int) uint64 { return binary.LittleEndian.Uint64(d.b[off:]) }

// word reads a 32- or 64-bit word.
func (d fields) word(off int) uint64 {
	if d.is64 {
		return d.u64(off)
	}
	return uint64(d.u32(off))
}

func (d fields) wordSize() int {
	if d.is64 {
		return 8
	}
	return 4
}

// NewFile parses a core file read through r, of the given size.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	ident := make([]byte, elfHeaderSize64)
	n, err := r.ReadAt(ident, 0)
	if n < 16 {
		if err == nil || err == io.EOF {
			return nil, fmt.Errorf("%w: file too short for an ELF header", ErrNotCore)
		}
		return nil, err
	}
	if !bytes.Equal(ident[:4], []byte("\x7fELF")) {
		return nil, fmt.Errorf("%w: no ELF magic", ErrNotCore)
	}
	f := &File{r: r, size: size}
	h, err := f.readHeader(ident, n)
	if err != nil {
		return nil, err
	}
	if err := f.readProgHeaders(h); err != nil {
		return nil, err
	}
	if len(f.Threads) == 0 {
		return nil, &FormatError{0, "no NT_PRSTATUS note"}
	}
	return f, nil
}

// elfHeader is what NewFile needs of the ELF header past the identification.
type elfHeader struct {
	phoff, shoff                uint64
	phentsize, phnum, shentsize int
}

// readHeader checks the ELF header's first n bytes in ident (class, byte
// order, type, machine) and sets f.Is64 and f.Arch.
func (f *File) readHeader(ident []byte, n int) (elfHeader, error) {
	switch ident[4] {
	case 1:
	case 2:
		f.Is64 = true
	default:
		return elfHeader{}, &FormatError{4, fmt.Sprintf("bad ELF class %d", ident[4])}
	}
	if ident[5] != 1 {
		return elfHeader{}, fmt.Errorf("%w: big-endian ELF (data encoding %d)", ErrUnsupportedMachine, ident[5])
	}
	hsize := elfHeaderSize32
	if f.Is64 {
		hsize = elfHeaderSize64
	}
	if n < hsize {
		return elfHeader{}, &FormatError{int64(n), "truncated ELF header"}
	}
	h := fields{ident[:hsize], f.Is64}
	const etCore = 4
	if typ := h.u16(16); typ != etCore {
		return elfHeader{}, fmt.Errorf("%w: ELF type %d", ErrNotCore, typ)
	}
	machine := h.u16(18)
	switch {
	case machine == emX86_64 && f.Is64:
		f.Arch = minidump.ArchAMD64
	case machine == emI386 && !f.Is64:
		f.Arch = minidump.ArchX86
	case machine == emAArch64 && f.Is64:
		f.Arch = minidump.ArchARM64
	case machine == emARM && !f.Is64:
		f.Arch = minidump.ArchARM
	default:
		return elfHeader{}, fmt.Errorf("%w: ELF machine %d (%d-bit)", ErrUnsupportedMachine, machine, map[bool]int{false: 32, true: 64}[f.Is64])
	}
	var eh elfHeader
	if f.Is64 {
		eh.phoff, eh.shoff = h.u64(32), h.u64(40)
		eh.phentsize, eh.phnum, eh.shentsize = int(h.u16(54)), int(h.u16(56)), int(h.u16(58))
	} else {
		eh.phoff, eh.shoff = uint64(h.u32(28)), uint64(h.u32(32))
		eh.phentsize, eh.phnum, eh.shentsize = int(h.u16(42)), int(h.u16(44)), int(h.u16(46))
	}
	wantPh := 32
	if f.Is64 {
		wantPh = 56
	}
	if eh.phentsize != wantPh {
		return elfHeader{}, &FormatError{0, fmt.Sprintf("program header size %d, want %d", eh.phentsize, wantPh)}
	}
	return eh, nil
}

// progHeaderCount is the number of program headers, which PN_XNUM puts in
// section header 0's sh_info.
func (f *File) progHeaderCount(h elfHeader) (int, error) {
	if h.phnum != 0xffff {
		return h.phnum, nil
	}
	if h.shoff == 0 || h.shentsize < 40 {
		return 0, &FormatError{0, "PN_XNUM without section header 0"}
	}
	sh := make([]byte, 4)
	infoOff := h.shoff + 28
	if f.Is64 {
		infoOff = h.shoff + 44
	}
	if err := f.readFile(sh, infoOff); err != nil {
		return 0, err
	}
	return int(binary.LittleEndian.Uint32(sh)), nil
}

// readProgHeaders reads the PT_LOAD segments, sorted by address, and the
// PT_NOTE notes.
func (f *File) readProgHeaders(h elfHeader) error {
	phnum, err := f.progHeaderCount(h)
	if err != nil {
		return err
	}
	if phnum > MaxProgHeaders {
		return &FormatError{0, fmt.Sprintf("%d program headers", phnum)}
	}
	phdrs := make([]byte, phnum*h.phentsize)
	if err := f.readFile(phdrs, h.phoff); err != nil {
		return fmt.Errorf("program headers: %w", err)
	}
	var notes [][2]uint64
	var noteTotal uint64
	for i := 0; i < phnum; i++ {
		p := fields{phdrs[i*h.phentsize : (i+1)*h.phentsize], f.Is64}
		var typ, flags uint32
		var off, vaddr, filesz, memsz uint64
		if f.Is64 {
			typ, flags = p.u32(0), p.u32(4)
			off, vaddr, filesz, memsz = p.u64(8), p.u64(16), p.u64(32), p.u64(40)
		} else {
			typ, flags = p.u32(0), p.u32(24)
			off, vaddr, filesz, memsz = uint64(p.u32(4)), uint64(p.u32(8)), uint64(p.u32(16)), uint64(p.u32(20))
		}
		phOff := int64(h.phoff) + int64(i*h.phentsize)
		switch typ {
		case 1: // PT_LOAD
			if err := f.addSegment(phOff, Segment{vaddr, memsz, filesz, off, flags}); err != nil {
				return err
			}
		case 4: // PT_NOTE
			noteTotal += filesz
			if noteTotal > MaxNoteBytes || filesz > MaxNoteBytes {
				return &FormatError{phOff, "notes larger than MaxNoteBytes"}
			}
			notes = append(notes, [2]uint64{off, filesz})
		}
	}
	sort.SliceStable(f.Segments, func(i, j int) bool { return f.Segments[i].Vaddr < f.Segments[j].Vaddr })
	for _, n := range notes {
		buf := make([]byte, n[1])
		if err := f.readFile(buf, n[0]); err != nil {
			return fmt.Errorf("PT_NOTE: %w", err)
		}
		if err := f.parseNotes(buf, int64(n[0])); err != nil {
			return err
		}
	}
	return nil
}

// addSegment adds the PT_LOAD segment s of the program header at phOff,
// its file size cut to its memory size and to the file.
func (f *File) addSegment(phOff int64, s Segment) error {
	if s.Filesz > s.Memsz {
		s.Filesz = s.Memsz
	}
	if s.Vaddr+s.Memsz < s.Vaddr {
		return &FormatError{phOff, "PT_LOAD wraps around the address space"}
	}
	// Bytes past the end of the file are not there (a truncated core).
	if s.Off > uint64(f.size) {
		s.Filesz = 0
	} else if s.Off+s.Filesz > uint64(f.size) || s.Off+s.Filesz < s.Off {
		s.Filesz = uint64(f.size) - s.Off
	}
	if s.Memsz > 0 {
		f.Segments = append(f.Segments, s)
	}
	return nil
}

func (f *File) readFile(p []byte, off uint64) error {
	if off > uint64(f.size) || uint64(len(p)) > uint64(f.size)-off {
		return &FormatError{int64(off), fmt.Sprintf("%d bytes past the end of the file", len(p))}
	}
	_, err := f.r.ReadAt(p, int64(off))
	if err == io.EOF {
		err = &FormatError{int64(off), "unexpected end of file"}
	}
	return err
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }

func (f *File) parseNotes(buf []byte, base int64) error {
	for pos := uint64(0); pos+12 <= uint64(len(buf)); {
		at := base + int64(pos)
		namesz := uint64(binary.LittleEndian.Uint32(buf[pos:]))
		descsz := uint64(binary.LittleEndian.Uint32(buf[pos+4:]))
		typ := binary.LittleEndian.Uint32(buf[pos+8:])
		nameOff := pos + 12
		descOff := nameOff + align4(namesz)
		end := descOff + align4(descsz)
		if descOff > uint64(len(buf)) || descOff+descsz > uint64(len(buf)) {
			return &FormatError{at, fmt.Sprintf("note (type %#x) runs past its segment", typ)}
		}
		name := string(bytes.TrimRight(buf[nameOff:nameOff+namesz], "\x00"))
		desc := buf[descOff : descOff+descsz]
		if name == "CORE" {
			if err := f.parseNote(typ, desc, base+int64(descOff)); err != nil {
				return err
			}
		}
		if end > uint64(len(buf)) {
			break
		}
		pos = end
	}
	return nil
}

func (f *File) parseNote(typ uint32, desc []byte, off int64) error {
	d := fields{desc, f.Is64}
	switch typ {
	case NTPRStatus:
		t, err := f.parsePRStatus(d, off)
		if err != nil {
			return err
		}
		f.Threads = append(f.Threads, t)
	case NTSigInfo:
		if len(desc) < 16 {
			return &FormatError{off, "NT_SIGINFO too short"}
		}
		si := &SigInfo{Signo: int32(d.u32(0)), Errno: int32(d.u32(4)), Code: int32(d.u32(8))}
		addrOff := 12
		if f.Is64 {
			addrOff = 16
		}
		if len(desc) >= addrOff+d.wordSize() {
			si.Addr = d.word(addrOff)
		}
		if n := len(f.Threads); n > 0 && f.Threads[n-1].SigInfo == nil {
			f.Threads[n-1].SigInfo = si
		}
	case NTAuxv:
		if f.Auxv == nil {
			f.Auxv = append([]byte(nil), desc...)
		}
	case NTFile:
		if f.Files == nil {
			return f.parseNTFile(d, off)
		}
	case NTPRPSInfo:
		// pr_pid, pr_ppid, pr_pgrp, pr_sid, pr_fname[16] and pr_psargs[80]
		// end the structure on every architecture.
		if len(desc) >= 112 && f.PSInfo == nil {
			cstr := func(b []byte) string {
				if i := bytes.IndexByte(b, 0); i >= 0 {
					b = b[:i]
				}
				return string(b)
			}
			f.PSInfo = &PSInfo{PID: d.u32(len(desc) - 112), FName: cstr(desc[len(desc)-96 : len(desc)-80]), PSArgs: cstr(desc[len(desc)-80:])}
		}
	}
	return nil
}

func (f *File) parseNTFile(d fields, off int64) error {
	ws := uint64(d.wordSize())
	if uint64(len(d.b)) < 2*ws {
		return &FormatError{off, "NT_FILE too short"}
	}
	count, pageSize := d.word(0), d.word(int(ws))
	if count > maxNTFileCount || count*3*ws > uint64(len(d.b))-2*ws {
		return &FormatError{off, fmt.Sprintf("NT_FILE count %d does not fit its note", count)}
	}
	names := d.b[2*ws+count*3*ws:]
	f.PageSize = pageSize
	files := make([]MappedFile, 0, count)
	for i := uint64(0); i < count; i++ {
		e := int(2*ws + i*3*ws)
		m := MappedFile{Start: d.word(e), End: d.word(e + int(ws)), Offset: d.word(e+2*int(ws)) * pageSize}
		j := bytes.IndexByte(names, 0)
		if j < 0 {
			return &FormatError{off, fmt.Sprintf("NT_FILE name %d not terminated", i)}
		}
		m.Name, names = string(names[:j]), names[j+1:]
		if m.End < m.Start {
			return &FormatError{off, fmt.Sprintf("NT_FILE entry %d ends before it starts", i)}
		}
		files = append(files, m)
	}
	f.Files = files
	return nil
}

// prstatus layout: pr_reg starts at 112 (64-bit) or 72 (32-bit).
func (f *File) parsePRStatus(d fields, off int64) (Thread, error) {
	var t Thread
	regOff, nregs := 72, 0
	if f.Is64 {
		regOff = 112
	}
	switch f.Arch {
	case minidump.ArchAMD64:
		nregs = 27
	case minidump.ArchX86:
		nregs = 17
	case minidump.ArchARM64:
		nregs = 34
	case minidump.ArchARM:
		nregs = 18
	}
	ws := d.wordSize()
	if len(d.b) < regOff+nregs*ws {
		return t, &FormatError{off, fmt.Sprintf("NT_PRSTATUS of %d bytes is too short for %v", len(d.b), f.Arch)}
	}
	t.CurSig = d.u16(12)
	if f.Is64 {
		t.PID = d.u32(32)
	} else {
		t.PID = d.u32(24)
	}
	reg := func(i int) uint64 { return d.word(regOff + i*ws) }
	ctx := minidump.NewContext(f.Arch)
	switch f.Arch {
	case minidump.ArchAMD64:
		// user_regs_struct: r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx
		// rsi rdi orig_rax rip cs eflags rsp ss fs_base gs_base ds es fs gs
		for i, name := range []string{"r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
			"rax", "rcx", "rdx", "rsi", "rdi", "", "rip"} {
			if name != "" {
				ctx.Set(name, reg(i))
			}
		}
		ctx.Set("rsp", reg(19))
		t.CS, t.Status, t.SS = uint16(reg(17)), reg(18), uint16(reg(20))
		t.DS, t.ES, t.FS, t.GS = uint16(reg(23)), uint16(reg(24)), uint16(reg(25)), uint16(reg(26))
	case minidump.ArchX86:
		// user_regs_struct: ebx ecx edx esi edi ebp eax ds es fs gs orig_eax eip cs eflags esp ss
		for i, name := range []string{"ebx", "ecx", "edx", "esi", "edi", "ebp", "eax"} {
			ctx.Set(name, reg(i))
		}
		t.DS, t.ES, t.FS, t.GS = uint16(reg(7)), uint16(reg(8)), uint16(reg(9)), uint16(reg(10))
		ctx.Set("eip", reg(12))
		t.CS = uint16(reg(13))
		t.Status = reg(14)
		ctx.Set("eflags", reg(14))
		ctx.Set("esp", reg(15))
		t.SS = uint16(reg(16))
	case minidump.ArchARM64:
		// user_pt_regs: x0..x30 sp pc pstate
		for i := 0; i < 33; i++ {
			ctx.SetIndex(i, reg(i))
		}
		t.Status = reg(33)
	case minidump.ArchARM:
		// r0..r15 cpsr orig_r0
		for i := 0; i < 16; i++ {
			ctx.SetIndex(i, reg(i))
		}
		t.Status = reg(16)
	}
	t.Context = ctx
	return t, nil
}

// segmentAt returns the index of the segment containing addr, or -1.
func (f *File) segmentAt(addr uint64) int {
	i := sort.Search(len(f.Segments), func(i int) bool { return f.Segments[i].Vaddr+f.Segments[i].Memsz > addr })
	if i < len(f.Segments) && f.Segments[i].Vaddr <= addr {
		return i
	}
	return -1
}

// Readable returns how many bytes from addr on, up to max, are stored in
// the core, following adjacent segments.
func (f *File) Readable(addr, max uint64) uint64 {
	var n uint64
	for n < max {
		i := f.segmentAt(addr + n)
		if i < 0 {
			break
		}
		s := f.Segments[i]
		stored := s.Vaddr + s.Filesz
		if addr+n >= stored {
			break
		}
		n += stored - (addr + n)
		if addr+n < addr { // wrapped
			break
		}
	}
	if n > max {
		n = max
	}
	return n
}

// ReadMemory fills p with process memory at addr. It fails unless all of p
// is stored in the core.
func (f *File) ReadMemory(addr uint64, p []byte) error {
	if f.Readable(addr, uint64(len(p))) < uint64(len(p)) {
		return fmt.Errorf("coredump: memory [%#x, +%#x) not in core", addr, len(p))
	}
	for done := 0; done < len(p); {
		a := addr + uint64(done)
		s := f.Segments[f.segmentAt(a)]
		n := s.Vaddr + s.Filesz - a
		if n > uint64(len(p)-done) {
			n = uint64(len(p) - done)
		}
		if err := f.readFile(p[done:done+int(n)], s.Off+(a-s.Vaddr)); err != nil {
			return err
		}
		done += int(n)
	}
	return nil
}

// AuxvEntry is one auxiliary vector entry.
type AuxvEntry struct{ Type, Value uint64 }

// AuxvEntries decodes NT_AUXV up to AT_NULL.
func (f *File) AuxvEntries() []AuxvEntry {
	d := fields{f.Auxv, f.Is64}
	ws := d.wordSize()
	var out []AuxvEntry
	for off := 0; off+2*ws <= len(f.Auxv); off += 2 * ws {
		e := AuxvEntry{d.word(off), d.word(off + ws)}
		if e.Type == 0 {
			break
		}
		out = append(out, e)
	}
	return out
}

// AuxvValue returns the value of auxv entry typ.
func (f *File) AuxvValue(typ uint64) (uint64, bool) {
	for _, e := range f.AuxvEntries() {
		if e.Type == typ {
			return e.Value, true
		}
	}
	return 0, false
}

// CrashThread returns the index of the thread that received the fatal
// signal: the first with an NT_SIGINFO naming a signal other than SIGSTOP
// (gdb writes SIGSTOP for the threads it stopped), else the first with a
// current signal (the kernel sets pr_cursig in every thread, qemu-user only
// in the crashing one, which the kernel and qemu write first), else 0.
func (f *File) CrashThread() int {
	const sigstop = 19
	for i, t := range f.Threads {
		if t.SigInfo != nil && t.SigInfo.Signo != 0 && t.SigInfo.Signo != sigstop {
			return i
		}
	}
	for i, t := range f.Threads {
		if t.CurSig != 0 {
			return i
		}
	}
	return 0
}
