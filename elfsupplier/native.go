package elfsupplier

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/elfcfi"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/prologue"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// MaxCodeBytes bounds the executable bytes kept of one module's file.
const MaxCodeBytes = 256 << 20

// maxFunctionSize bounds how far from a function's start an address may
// lie for the prologue to be read: farther, the start is no evidence.
const maxFunctionSize = 1 << 16

// Module is what one module's ELF file shows the walker beyond the .sym
// made from it (walker.NativeModule): its unwind tables as STACK CFI, its
// executable bytes, and the function starts its unwind entries and
// symbols give, for prologue analysis of code no unwind entry covers.
// Addresses are relative to the first PT_LOAD segment, as in the .sym.
type Module struct {
	file   *symfile.File // the .sym made from the ELF files
	arch   prologue.Arch // ARM for 32-bit ARM: Thumb is told per function
	segs   []segment
	starts []uint64 // function starts, sorted, deduplicated; ARM: Thumb bit clear
	thumb  map[uint64]bool
}

// segment is the file-backed part of an executable PT_LOAD segment.
type segment struct {
	rel  uint64
	data []byte
}

var _ walker.NativeModule = (*Module)(nil)

// CodeError says why an ELF file's code was not read.
type CodeError struct {
	Path string
	Off  uint64 // file offset of the segment
	Err  error
}

func (e *CodeError) Error() string {
	return fmt.Sprintf("%s: executable segment at file offset %#x: %v", e.Path, e.Off, e.Err)
}

func (e *CodeError) Unwrap() error { return e.Err }

// newModule reads f's executable segments and function starts. file is
// the .sym made from f (and its debug file debug, which may be nil).
func newModule(f, debug *elf.File, path string, file *symfile.File) (*Module, error) {
	m := &Module{file: file, thumb: map[uint64]bool{}}
	switch f.Machine {
	case elf.EM_ARM:
		m.arch = prologue.ARM
	case elf.EM_AARCH64:
		m.arch = prologue.ARM64
	case elf.EM_386:
		m.arch = prologue.X86
	case elf.EM_X86_64:
		m.arch = prologue.AMD64
	}
	base, first := uint64(0), true
	total := uint64(0)
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		if first {
			base, first = p.Vaddr, false
		}
		if p.Flags&elf.PF_X == 0 || p.Filesz == 0 || p.Vaddr < base {
			continue
		}
		total += p.Filesz
		if total > MaxCodeBytes || p.Filesz > p.Memsz {
			return nil, &CodeError{Path: path, Off: p.Off, Err: fmt.Errorf("%d bytes (limit %d, memory size %d)", p.Filesz, MaxCodeBytes, p.Memsz)}
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil && err != io.EOF {
			return nil, &CodeError{Path: path, Off: p.Off, Err: err}
		}
		m.segs = append(m.segs, segment{rel: p.Vaddr - base, data: data})
	}
	m.addStarts(f, base)
	m.addCallTargets()
	if debug != nil {
		m.addStarts(debug, base)
	}
	sort.Slice(m.starts, func(i, j int) bool { return m.starts[i] < m.starts[j] })
	out := m.starts[:0]
	for i, s := range m.starts {
		if i == 0 || s != m.starts[i-1] {
			out = append(out, s)
		}
	}
	m.starts = out
	return m, nil
}

// addStarts adds the function starts of f: its entry point, FDE initial
// locations, .ARM.exidx entries and function symbols. Unwind tables that
// do not parse add nothing (dumpsyms has reported them).
func (m *Module) addStarts(f *elf.File, base uint64) {
	add := func(vaddr uint64, thumb bool) {
		if vaddr < base || !m.inCode(vaddr-base) {
			return
		}
		m.starts = append(m.starts, vaddr-base)
		if thumb {
			m.thumb[vaddr-base] = true
		}
	}
	isARM := f.Machine == elf.EM_ARM
	if f.Entry != 0 {
		add(f.Entry&^1, isARM && f.Entry&1 == 1)
	}
	if t, err := elfcfi.FromELF(f); err == nil {
		for _, s := range []*elfcfi.Section{t.EHFrame, t.DebugFrame} {
			if s == nil {
				continue
			}
			if fdes, err := s.Entries(); err == nil {
				for _, fde := range fdes {
					add(fde.Begin&^1, false)
				}
			}
		}
		if t.Exidx != nil {
			for i := 0; i < t.Exidx.Len(); i++ {
				if e, err := t.Exidx.Entry(i); err == nil {
					add(e.Func, false)
				}
			}
		}
	}
	for _, syms := range [][]elf.Symbol{symbols(f.Symbols), symbols(f.DynamicSymbols)} {
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Section != elf.SHN_UNDEF && s.Value != 0 {
				add(s.Value&^1, isARM && s.Value&1 == 1)
			}
		}
	}
}

func symbols(read func() ([]elf.Symbol, error)) []elf.Symbol {
	s, _ := read()
	return s
}

func (m *Module) inCode(rel uint64) bool {
	for _, s := range m.segs {
		if rel >= s.rel && rel-s.rel < uint64(len(s.data)) {
			return true
		}
	}
	return false
}

// IsCode implements walker.NativeModule.
func (m *Module) IsCode(rel uint64) bool { return m.inCode(rel) }

// ReadCode implements walker.NativeModule.
func (m *Module) ReadCode(rel uint64, p []byte) bool {
	for _, s := range m.segs {
		if rel >= s.rel && rel-s.rel <= uint64(len(s.data)) && uint64(len(p)) <= uint64(len(s.data))-(rel-s.rel) {
			copy(p, s.data[rel-s.rel:])
			return true
		}
	}
	return false
}

// code returns the executable bytes from rel up to n of them.
func (m *Module) code(rel uint64, n int) []byte {
	for _, s := range m.segs {
		if rel >= s.rel && rel-s.rel < uint64(len(s.data)) {
			b := s.data[rel-s.rel:]
			if len(b) > n {
				b = b[:n]
			}
			return b
		}
	}
	return nil
}

// CFIRules implements walker.NativeModule: the STACK CFI made from the
// file's unwind tables, else the prologue of the function containing
// q.Rel (see functionFor). On ARM, q.Rel's bit 0 says Thumb (a caller's
// address keeps the bit of its return address).
func (m *Module) CFIRules(q walker.NativeQuery) (symfile.CFIRules, bool) {
	if m.file != nil {
		if rules, ok := m.file.CFIRules(q.Rel); ok {
			return rules, true
		}
	}
	if m.arch == 0 {
		return symfile.CFIRules{}, false
	}
	pc := q.Rel
	if m.arch == prologue.ARM {
		pc &^= 1
	}
	start, ok := m.functionFor(q, pc)
	if !ok {
		return symfile.CFIRules{}, false
	}
	code := m.code(start, prologue.MaxBytes)
	if code == nil {
		return symfile.CFIRules{}, false
	}
	arch := m.arch
	if arch == prologue.ARM && m.isThumb(start, q.Rel, code) {
		arch = prologue.Thumb
	}
	fr := prologue.Analyze(arch, code, start, pc)
	var rules symfile.CFIRules
	for reg, expr := range fr.Rules() {
		rules.Set(reg, expr)
	}
	return rules, true
}

// functionFor returns where the prologue of the function containing pc
// starts: the nearest of the symbol file's start and the file's own
// function starts. On ARM a caller's function (not the context frame's)
// has pushed its return address before the call: the last push of lr
// after that start (pushLR) is where its frame begins, for a function
// the evidence leaves out (one only called through pointers). The
// context frame's function is read only from a symbol's start: without
// one its start may be an earlier function's, and the walkers' own
// frame-0 rules do better than a wrong prologue.
func (m *Module) functionFor(q walker.NativeQuery, pc uint64) (uint64, bool) {
	start, ok := m.functionStart(pc)
	if q.HaveStart && q.SymStart <= pc && (!ok || q.SymStart > start) {
		start, ok = q.SymStart, true
	}
	if !ok || pc-start > maxFunctionSize {
		return 0, false
	}
	if q.Context && !q.HaveStart && m.arch == prologue.ARM && m.returnsBetween(start, pc, m.isThumb(start, q.Rel, m.code(start, 4))) {
		return 0, false
	}
	if m.arch == prologue.ARM && !q.Context && !(q.HaveStart && start == q.SymStart) {
		if p, found := m.pushLR(start, pc, q.Rel&1 == 1); found {
			start = p
		}
	}
	return start, true
}

// returnsBetween reports whether an unconditional return instruction
// (Thumb `bx lr`, `pop {..., pc}`, `pop.w {..., pc}`, `ldr pc, [sp], #4`;
// their ARM forms) lies in [from, pc), read in order from from: then
// from is the start of an earlier function, or pc lies past a return of
// its own, where the prologue's frame is gone.
func (m *Module) returnsBetween(from, pc uint64, thumb bool) bool {
	code := m.code(from, int(pc-from))
	if !thumb {
		for i := 0; i+4 <= len(code); i += 4 {
			w := binary.LittleEndian.Uint32(code[i:])
			if w == 0xe12fff1e || w&0xffff8000 == 0xe8bd8000 || w == 0xe49df004 {
				return true
			}
		}
		return false
	}
	inIT := 0
	for i := 0; i+2 <= len(code); {
		hw := binary.LittleEndian.Uint16(code[i:])
		size := 2
		if hw>>11 >= 0x1d {
			size = 4
		}
		if i+size > len(code) {
			break
		}
		ret := hw == 0x4770 || hw&0xff00 == 0xbd00
		if size == 4 {
			hw2 := binary.LittleEndian.Uint16(code[i+2:])
			ret = hw == 0xe8bd && hw2&0x8000 != 0 || hw == 0xf85d && hw2 == 0xfb04
		}
		if ret && inIT == 0 {
			return true
		}
		if inIT > 0 {
			inIT--
		}
		if hw&0xff00 == 0xbf00 && hw&0xf != 0 { // IT: up to 4 conditional instructions
			inIT = 4 - bits.TrailingZeros16(hw&0xf)
		}
		i += size
	}
	return false
}

// pushLR finds the last push of lr in (from, pc): Thumb `push {..., lr}`
// and `push.w {..., lr}`, ARM `push {..., lr}` (with the APCS `mov ip,
// sp` before it).
func (m *Module) pushLR(from, pc uint64, thumb bool) (uint64, bool) {
	code := m.code(from, int(pc-from))
	if thumb {
		for i := len(code) - 2; i > 0; i -= 2 {
			hw := binary.LittleEndian.Uint16(code[i:])
			if hw&0xff00 == 0xb500 {
				return from + uint64(i), true
			}
			if i+4 <= len(code) && hw == 0xe92d && binary.LittleEndian.Uint16(code[i+2:])&0x4000 != 0 {
				return from + uint64(i), true
			}
		}
		return 0, false
	}
	for i := (len(code) - 4) &^ 3; i > 0; i -= 4 {
		if w := binary.LittleEndian.Uint32(code[i:]); w&0xffff4000 == 0xe92d4000 {
			if i >= 4 && binary.LittleEndian.Uint32(code[i-4:]) == 0xe1a0c00d {
				i -= 4
			}
			return from + uint64(i), true
		}
	}
	return 0, false
}

// FunctionStart implements walker.NativeModule.
func (m *Module) FunctionStart(rel uint64) (uint64, bool) { return m.functionStart(rel) }

// functionStart returns the nearest function start at or below rel.
func (m *Module) functionStart(rel uint64) (uint64, bool) {
	i := sort.Search(len(m.starts), func(i int) bool { return m.starts[i] > rel }) - 1
	if i < 0 {
		return 0, false
	}
	return m.starts[i], true
}

// isThumb tells the instruction set of the ARM function at start: a
// symbol's Thumb bit, rel's (a return address's) bit 0, a start that is
// not word-aligned; else the first word decides, an unconditional A32
// instruction (condition AL) telling ARM.
func (m *Module) isThumb(start, rel uint64, code []byte) bool {
	switch {
	case m.thumb[start], rel&1 == 1, start&3 != 0:
		return true
	case len(code) < 4:
		return true
	}
	return code[3]>>4 != 0xe
}
