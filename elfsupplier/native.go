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

// MaxCodeBytes bounds the executable bytes kept of one module's file;
// MaxTotalCodeBytes those a Supplier keeps of all its modules' files (a
// dump of a process with hundreds of libraries at hand): past it, modules
// get their .sym's unwind rules but no code and no prologues.
const (
	MaxCodeBytes      = 256 << 20
	MaxTotalCodeBytes = 1 << 30
)

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
// the .sym made from f (and its debug file debug, which may be nil);
// size is f's size in bytes, which every segment must lie within.
func newModule(f, debug *elf.File, path string, size int64, file *symfile.File) (*Module, error) {
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
		if p.Off > uint64(size) || p.Filesz > uint64(size)-p.Off {
			return nil, &CodeError{Path: path, Off: p.Off, Err: fmt.Errorf("%d bytes past the file's end (%d bytes)", p.Filesz, size)}
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
	if n <= 0 {
		return nil
	}
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
// file's unwind tables (walker.CFIUnwindTables), else (walker.CFIPrologue)
// from the prologue of the function containing q.Rel (see functionFor).
// On ARM, q.Rel's bit 0 says Thumb (a caller's address keeps the bit of
// its return address).
func (m *Module) CFIRules(q walker.NativeQuery) (symfile.CFIRules, walker.CFISource, bool) {
	if m.file != nil {
		if rules, ok := m.file.CFIRules(q.Rel); ok {
			return rules, walker.CFIUnwindTables, true
		}
	}
	if m.arch == 0 {
		return symfile.CFIRules{}, walker.CFISymbols, false
	}
	pc := q.Rel
	if m.arch == prologue.ARM {
		pc &^= 1
	}
	start, ok := m.functionFor(q, pc)
	if !ok {
		return symfile.CFIRules{}, walker.CFISymbols, false
	}
	code := m.code(start, prologue.MaxBytes)
	if code == nil {
		return symfile.CFIRules{}, walker.CFISymbols, false
	}
	arch := m.arch
	if arch == prologue.ARM && (q.Context && m.isThumb(start, q, code) || !q.Context && q.Rel&1 == 1) {
		arch = prologue.Thumb
	}
	fr := prologue.Analyze(arch, code, start, pc)
	var rules symfile.CFIRules
	for reg, expr := range fr.Rules() {
		rules.Set(reg, expr)
	}
	return rules, walker.CFIPrologue, true
}

// functionFor returns where the prologue of the function containing pc
// starts: the symbol file's start when it is the nearest; else, on ARM,
// from the nearest of the file's own starts (an earlier function's when
// the one containing pc is only called through pointers, so no call
// names it): past the last end of a function before pc (lastReturn), a
// caller's function starts at its last push of lr before the call (it
// must have saved its return address to call), the context frame's at
// the first push of lr after that end, or there for a leaf (pushStart).
// A caller's instruction set is its return address's bit 0: a start of
// the other set is another function's.
func (m *Module) functionFor(q walker.NativeQuery, pc uint64) (uint64, bool) {
	start, ok := m.functionStart(pc)
	if q.HaveStart && q.SymStart <= pc && (!ok || q.SymStart >= start) {
		return q.SymStart, pc-q.SymStart <= maxFunctionSize
	}
	if !ok || pc-start > maxFunctionSize {
		return 0, false
	}
	if m.arch != prologue.ARM {
		return start, true
	}
	thumb := m.isThumb(start, q, m.code(start, 4))
	if !q.Context && thumb != (q.Rel&1 == 1) {
		thumb = q.Rel&1 == 1
		start = (start + 3) &^ 3
		if !thumb {
			return m.pushStart(start, pc, thumb, true), true
		}
	}
	from := start
	if end, found := m.lastReturn(start, pc, thumb); found {
		from = end
	}
	if !q.Context {
		if p := m.pushStart(from, pc, thumb, true); p != from {
			return p, true
		}
		// No push of lr since that end, or since the nearest start: the
		// end was none (a loop's jump back in a long function) or the
		// start a false call target; the caller's push lies before.
		if p, ok := m.lastPushBefore(start, pc, thumb); ok {
			return p, true
		}
	}
	if from != start {
		return m.pushStart(from, pc, thumb, false), true
	}
	return start, true
}

// lastPushBefore finds the last push of lr before pc, read from the
// nearest function start at or below start for which there is one, back
// to maxFunctionSize before pc.
func (m *Module) lastPushBefore(start, pc uint64, thumb bool) (uint64, bool) {
	j := sort.Search(len(m.starts), func(j int) bool { return m.starts[j] > start }) - 1
	for ; j >= 0 && pc-m.starts[j] <= maxFunctionSize; j-- {
		from := m.starts[j]
		if !thumb {
			from = (from + 3) &^ 3
		}
		if p := m.pushStart(from, pc, thumb, true); p != from {
			return p, true
		}
	}
	return 0, false
}

// pushStart returns where the frame of a function containing pc begins,
// reading from from (a function's start or the end of an earlier one) in
// instruction order: at the last push of lr before pc (last set) or the
// first, moved back over the pushes and `mov ip, sp` right before it
// (variadic functions push their arguments first; what lies before is
// padding, literal pools or instructions that leave the stack alone);
// from when there is no push of lr (a leaf).
func (m *Module) pushStart(from, pc uint64, thumb, last bool) uint64 {
	if from >= pc {
		return from
	}
	code := m.code(from, int(pc-from))
	found := -1
	if thumb {
		for i := 0; i+2 <= len(code); {
			hw := binary.LittleEndian.Uint16(code[i:])
			size := 2
			if hw>>11 >= 0x1d {
				size = 4
			}
			if i+size > len(code) {
				break
			}
			if hw&0xff00 == 0xb500 || hw == 0xe92d && binary.LittleEndian.Uint16(code[i+2:])&0x4000 != 0 ||
				hw == 0xf84d && binary.LittleEndian.Uint16(code[i+2:]) == 0xed04 { // PUSH {..., lr}, PUSH.W, STR lr, [sp, #-4]!
				found = i
				if !last {
					break
				}
			}
			i += size
		}
		if found < 0 {
			return from
		}
		for found >= 2 {
			prev := binary.LittleEndian.Uint16(code[found-2:])
			switch {
			case prev&0xfe00 == 0xb400, prev&0xff80 == 0xb080, prev == 0x46ec: // PUSH, SUB sp, MOV ip, sp
				found -= 2
				continue
			case found >= 4 && binary.LittleEndian.Uint16(code[found-4:]) == 0xe92d: // PUSH.W
				found -= 4
				continue
			}
			break
		}
		return from + uint64(found)
	}
	for i := 0; i+4 <= len(code); i += 4 {
		if binary.LittleEndian.Uint32(code[i:])&0xffff4000 == 0xe92d4000 {
			found = i
			if !last {
				break
			}
		}
	}
	if found < 0 {
		return from
	}
	for found >= 4 {
		prev := binary.LittleEndian.Uint32(code[found-4:])
		if prev&0xffff0000 != 0xe92d0000 && prev != 0xe1a0c00d { // PUSH, MOV ip, sp
			break
		}
		found -= 4
	}
	return from + uint64(found)
}

// lastReturn finds the last return instruction or unconditional jump
// back in [from, pc) that ends a function, read in order from from, and returns the address after it:
// where the next function starts (its literal pool aside), when from is
// an earlier function's start. A return ends the function when no branch
// before it (since the last end) jumps past it: code a branch reaches
// after an early return is the same function's. Returns are Thumb `bx
// lr`, `pop {..., pc}`, `ldm.w sp{!}, {..., pc}`, `ldr pc, [sp], #4` and
// their ARM forms, outside IT blocks; a table branch (TBB, TBH) reaches
// up to pc.
func (m *Module) lastReturn(from, pc uint64, thumb bool) (uint64, bool) {
	if from >= pc {
		return 0, false
	}
	code := m.code(from, int(pc-from))
	var end uint64
	found := false
	reach := from // the farthest branch target since the last end
	ended := func(at, size uint64) {
		if reach <= at {
			end, found = at+size, true
			reach = at + size
		}
	}
	if !thumb {
		for i := 0; i+4 <= len(code); i += 4 {
			at := from + uint64(i)
			w := binary.LittleEndian.Uint32(code[i:])
			switch {
			case w>>28 == 0xe && (w == 0xe12fff1e || w&0xffdf8000 == 0xe89d8000 || w == 0xe49df004): // BX lr, LDM sp{!}, {..., pc}, POP {pc}
				ended(at, 4)
			case w>>28 != 0xf && w&0x0f000000 == 0x0a000000: // B<c>
				t := at + 8 + signExtend(uint64(w&0xffffff)<<2, 26)
				reach = max(reach, t)
				if w>>28 == 0xe && t < at { // a jump back with nothing reaching past it
					ended(at, 4)
				}
			}
		}
		return end, found
	}
	inIT := 0
	for i := 0; i+2 <= len(code); {
		at := from + uint64(i)
		hw := uint64(binary.LittleEndian.Uint16(code[i:]))
		size := 2
		if hw>>11 >= 0x1d {
			size = 4
		}
		if i+size > len(code) {
			break
		}
		ret := hw == 0x4770 || hw&0xff00 == 0xbd00
		if size == 4 {
			hw2 := uint64(binary.LittleEndian.Uint16(code[i+2:]))
			ret = hw&0xffdf == 0xe89d && hw2&0x8000 != 0 || hw == 0xf85d && hw2 == 0xfb04 // LDM.W sp{!}, {..., pc}
			switch {
			case hw&0xf800 == 0xf000 && hw2&0xd000 == 0x9000: // B.W
				t := thumbBranch(at, hw, hw2)
				reach = max(reach, t)
				ret = t < at // a jump back with nothing reaching past it
			case hw&0xf800 == 0xf000 && hw2&0xd000 == 0x8000 && hw>>6&0xe != 0xe: // B<c>.W
				imm := (hw>>10&1)<<20 | (hw2>>11&1)<<19 | (hw2>>13&1)<<18 | (hw&0x3f)<<12 | (hw2&0x7ff)<<1
				reach = max(reach, at+4+signExtend(imm, 21))
			case hw&0xfff0 == 0xe8d0 && hw2&0xffe0 == 0xf000: // TBB, TBH
				reach = max(reach, pc)
			}
		} else {
			switch {
			case hw&0xf000 == 0xd000 && hw&0x0e00 != 0x0e00: // B<c>
				reach = max(reach, at+4+signExtend((hw&0xff)<<1, 9))
			case hw&0xf800 == 0xe000: // B
				t := at + 4 + signExtend((hw&0x7ff)<<1, 12)
				reach = max(reach, t)
				ret = t < at // a jump back with nothing reaching past it
			case hw&0xf500 == 0xb100: // CBZ, CBNZ
				reach = max(reach, at+4+((hw>>9&1)<<6|(hw>>3&0x1f)<<1))
			}
		}
		if ret && inIT == 0 {
			ended(at, uint64(size))
		}
		if inIT > 0 {
			inIT--
		}
		if hw&0xff00 == 0xbf00 && hw&0xf != 0 { // IT: up to 4 conditional instructions
			inIT = 4 - bits.TrailingZeros16(uint16(hw&0xf))
		}
		i += size
	}
	return end, found
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
// symbol's or call's Thumb bit, a start that is not word-aligned; else
// the first word decides, an unconditional A32 instruction (condition
// AL) telling ARM. (A caller's own instruction set is its return
// address's bit 0, kept in q.Rel.)
func (m *Module) isThumb(start uint64, q walker.NativeQuery, code []byte) bool {
	switch {
	case m.thumb[start], start&3 != 0:
		return true
	case len(code) < 4:
		return true
	}
	return code[3]>>4 != 0xe
}
