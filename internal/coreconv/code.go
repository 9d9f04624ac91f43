package coreconv

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Code windows: a few bytes of code around each stack word that points into
// an executable segment of a module, so that a walker can check that the
// instruction before a candidate return address is a call (Crashpad keeps
// memory around pointers found on the stack for the same reason). Most cores
// hold no file-backed text (qemu-user dumps none, the kernel none with the
// default coredump_filter), so the bytes come from the module's ELF file
// when the core lacks them.

// maxCodeWindows bounds the code windows taken from the stacks, so that a
// hostile core's stacks full of code pointers cannot make the work or the
// dump large (a real crash has tens to a few thousand).
const maxCodeWindows = 1 << 16

// maxCodeSegments bounds the executable segments used per module.
const maxCodeSegments = 64

// codeModule is a module whose executable segments code windows may come
// from.
type codeModule struct {
	base, end uint64
	// path is the ELF file to read code from when the core lacks it; ""
	// when no file may be read.
	path string
	// user: named by --module, so its file is used as it is. Other files
	// are used only when their build id is that of the module in the dump.
	user bool
	img  *coredump.Image // the module's image as found for its identifier, or nil

	resolved bool
	segs     []codeSegment // sorted by lo
	file     *os.File
}

// codeSegment is a PF_X PT_LOAD segment of a module at its address in the
// process: [lo, hi) is executable; [lo, fileHi) are bytes of the file, from
// offset fileOff, when file is not nil.
type codeSegment struct {
	lo, hi, fileHi uint64
	fileOff        uint64
	file           *os.File
}

// codeModules is the modules' executable memory, found lazily: a module's
// file is opened only when a stack word points into the module.
type codeModules struct {
	mods []*codeModule // sorted by base
}

func (c *codeModules) add(m *codeModule) { c.mods = append(c.mods, m) }

func (c *codeModules) close() {
	for _, m := range c.mods {
		if m.file != nil {
			m.file.Close()
		}
	}
}

// segmentAt returns the executable segment holding addr, or nil.
func (c *codeModules) segmentAt(addr uint64) *codeSegment {
	i := sort.Search(len(c.mods), func(i int) bool { return c.mods[i].base > addr }) - 1
	if i < 0 || addr >= c.mods[i].end {
		return nil
	}
	m := c.mods[i]
	if !m.resolved {
		m.resolve()
	}
	j := sort.Search(len(m.segs), func(j int) bool { return m.segs[j].hi > addr })
	if j < len(m.segs) && m.segs[j].lo <= addr {
		return &m.segs[j]
	}
	return nil
}

// resolve finds the module's executable segments: from its file when one
// may be read (the file's own program headers, for its offsets), else from
// the image read from the core's memory, whose bytes only the core can give.
func (m *codeModule) resolve() {
	m.resolved = true
	img := m.img
	var file *os.File
	if m.path != "" {
		if fimg, err := coredump.ImageFile(m.path); err == nil &&
			(m.user || img == nil || img.BuildID == nil || bytes.Equal(img.BuildID, fimg.BuildID)) {
			if f, _, err := regfile.Open(m.path); err == nil {
				img, file, m.file = fimg, f, f
			}
		}
	}
	if img == nil {
		return
	}
	bias := m.base - img.LoadStart
	for _, l := range img.Loads {
		lo := l.Vaddr + bias
		if l.Flags&elf.PF_X == 0 || l.Memsz == 0 || lo+l.Memsz < lo || len(m.segs) == maxCodeSegments {
			continue
		}
		s := codeSegment{lo: lo, hi: lo + l.Memsz, fileHi: lo, fileOff: l.Off}
		if file != nil {
			s.file = file
			s.fileHi = lo + min(l.Filesz, l.Memsz)
		}
		m.segs = append(m.segs, s)
	}
	sort.Slice(m.segs, func(i, j int) bool { return m.segs[i].lo < m.segs[j].lo })
}

// chunk is memory for the dump: [lo, hi) from the core when seg is nil,
// else from seg's file.
type chunk struct {
	lo, hi uint64
	seg    *codeSegment
}

// window returns the memory around addr inside seg: before bytes below it
// and after from it on, clipped to the segment, from the core when it holds
// all of them, else the part the file holds. ok is false when neither has
// any.
func window(core *coredump.File, seg *codeSegment, addr, before, after uint64) (chunk, bool) {
	lo, hi := seg.lo, seg.hi
	if addr-seg.lo > before {
		lo = addr - before
	}
	if seg.hi-addr > after {
		hi = addr + after
	}
	if core.Readable(lo, hi-lo) == hi-lo {
		return chunk{lo, hi, nil}, true
	}
	if seg.file == nil || addr >= seg.fileHi {
		return chunk{}, false
	}
	return chunk{lo, min(hi, seg.fileHi), seg}, true
}

// codeWindows returns a window of opt.CodeWindow bytes around each distinct
// register value and stack word that points into executable memory of a
// module, taking each window's size from *budget; the registers of all
// threads come first, then the stacks, thread by thread from the stack
// pointer up.
func codeWindows(core *coredump.File, code *codeModules, stacks []threadStack, opt Options, budget *uint64) []chunk {
	if opt.CodeWindow == 0 {
		return nil
	}
	before := opt.CodeWindow / 2
	after := opt.CodeWindow - before
	word := 4
	if core.Is64 {
		word = 8
	}
	arm := core.Arch == minidump.ArchARM
	seen := map[uint64]bool{}
	var out []chunk
	// visit adds the window around p; false when a bound is reached.
	visit := func(p uint64) bool {
		if arm {
			p &^= 1 // the Thumb bit of a return address
		}
		if seen[p] {
			return true
		}
		seg := code.segmentAt(p)
		if seg == nil {
			return true
		}
		if len(seen) == maxCodeWindows {
			return false
		}
		seen[p] = true
		c, ok := window(core, seg, p, before, after)
		if !ok {
			return true
		}
		if c.hi-c.lo > *budget {
			return false
		}
		*budget -= c.hi - c.lo
		out = append(out, c)
		return true
	}
	// The threads' registers first (the link register of arm and arm64
	// holds a return address), then the stacks.
	for _, t := range core.Threads {
		for i := range t.Context.NumRegs() {
			if v, ok := t.Context.Index(i); ok && !visit(v) {
				return out
			}
		}
	}
	for _, st := range stacks {
		// Aligned words: the stack starts 16-byte aligned.
		for off := 0; off+word <= len(st.data); off += word {
			var p uint64
			if word == 8 {
				p = binary.LittleEndian.Uint64(st.data[off:])
			} else {
				p = uint64(binary.LittleEndian.Uint32(st.data[off:]))
			}
			if !visit(p) {
				return out
			}
		}
	}
	return out
}

// disjoint sorts chunks and makes them disjoint: overlapping chunks of the
// same source merge; of different sources, the later one loses the overlap.
func disjoint(in []chunk) []chunk {
	sort.SliceStable(in, func(i, j int) bool { return in[i].lo < in[j].lo })
	var out []chunk
	for _, c := range in {
		k := len(out) - 1
		if k >= 0 {
			cur := &out[k]
			c.lo = max(c.lo, cur.lo)
			if c.lo <= cur.hi && c.seg == cur.seg {
				cur.hi = max(cur.hi, c.hi)
				continue
			}
			c.lo = max(c.lo, cur.hi)
		}
		if c.lo < c.hi {
			out = append(out, c)
		}
	}
	return out
}

// subtractChunks returns the parts of chunks not covered by cut (sorted,
// disjoint intervals).
func subtractChunks(in []chunk, cut []interval) []chunk {
	var out []chunk
	for _, c := range in {
		for _, part := range subtract(interval{c.lo, c.hi}, cut) {
			out = append(out, chunk{part.lo, part.hi, c.seg})
		}
	}
	return out
}

// read returns the chunk's bytes; ok is false when its file is shorter than
// its program headers say (the chunk is then left out: never invented).
func (c chunk) read(core *coredump.File) ([]byte, bool, error) {
	buf := make([]byte, c.hi-c.lo)
	if c.seg == nil {
		return buf, true, core.ReadMemory(c.lo, buf)
	}
	off := c.seg.fileOff + (c.lo - c.seg.lo)
	if off > 1<<62 {
		return nil, false, nil
	}
	n, _ := c.seg.file.ReadAt(buf, int64(off))
	return buf, n == len(buf), nil
}
