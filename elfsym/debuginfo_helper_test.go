package elfsym

import (
	"debug/elf"
	"errors"
	"fmt"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/dwarfsyms"
)

// DebugInfo is the functions of an ELF file's DWARF data with their source
// lines and inlined calls, read as package dumpsyms reads them for FUNC,
// line and INLINE records (internal/dwarfsyms), so a frame symbolized here
// is the frame the .sym file dumpsyms writes gives.
type DebugInfo struct {
	ranges []funcRange // sorted by address
	files  []string
}

type funcRange struct {
	addr, size uint64
	fn         *dwarfsyms.Func
}

// Frame is what DebugInfo.Lookup finds at an address.
type Frame struct {
	Function   string
	Base, Size uint64 // the function's range covering the address
	// File and Line are the source line at the address ("" and 0 when
	// none); LineBase is the start of its line record.
	File     string
	Line     int
	LineBase uint64
	// Inlines are the inlined calls covering the address, deepest first.
	Inlines []InlineFrame
}

// InlineFrame is one inlined call covering an address: the inlined
// function's name, where it was called from, and the position inside it
// (the source line for the deepest, the next deeper call site otherwise).
type InlineFrame struct {
	Name           string
	CallFile, File string
	CallLine, Line int
	Depth          int
	Base           uint64 // start of the inline's range covering the address
}

// NewDebugInfo reads the DWARF data of f (a binary with .debug_info, or a
// separate debug file). A file without DWARF data gives an empty
// DebugInfo.
func NewDebugInfo(f *elf.File) (*DebugInfo, error) {
	di := &DebugInfo{}
	seen := map[[2]any]bool{}
	add := func(fn *dwarfsyms.Func) bool {
		key := [2]any{fn.Addr(), fn.Name}
		if seen[key] {
			return false
		}
		seen[key] = true
		for _, r := range fn.Ranges {
			if r.Size != 0 {
				di.ranges = append(di.ranges, funcRange{r.Addr, r.Size, fn})
			}
		}
		return true
	}
	d, err := dwarfsyms.Read(f, dwarfsyms.Options{Inlines: true}, add)
	if errors.Is(err, dwarfsyms.ErrNoDWARF) {
		return di, nil
	}
	if err != nil {
		return nil, fmt.Errorf("elfsym: %w", err)
	}
	di.files = d.Files
	sort.SliceStable(di.ranges, func(i, j int) bool { return di.ranges[i].addr < di.ranges[j].addr })
	return di, nil
}

// Len returns the number of function ranges.
func (di *DebugInfo) Len() int { return len(di.ranges) }

// Lookup symbolizes addr (an address of the ELF file, not
// module-relative).
func (di *DebugInfo) Lookup(addr uint64) (Frame, bool) {
	i := sort.Search(len(di.ranges), func(i int) bool { return di.ranges[i].addr > addr }) - 1
	if i < 0 || addr-di.ranges[i].addr >= di.ranges[i].size {
		return Frame{}, false
	}
	r := di.ranges[i]
	fr := Frame{Function: r.fn.Name, Base: r.addr, Size: r.size}
	lines := r.fn.Lines
	if j := sort.Search(len(lines), func(j int) bool { return lines[j].Addr > addr }) - 1; j >= 0 && addr-lines[j].Addr < lines[j].Size {
		fr.File, fr.Line, fr.LineBase = di.files[lines[j].File], int(lines[j].Number), lines[j].Addr
	}
	// The chain from the outermost call in; then deepest first.
	var chain []*dwarfsyms.Inline
	var bases []uint64
	for ins := r.fn.Inlines; ; {
		var next *dwarfsyms.Inline
		var base uint64
		for _, in := range ins {
			if b, ok := covers(in.Ranges, addr); ok {
				next, base = in, b
				break
			}
		}
		if next == nil {
			break
		}
		chain, bases = append(chain, next), append(bases, base)
		ins = next.Children
	}
	file, line := fr.File, fr.Line
	for k := len(chain) - 1; k >= 0; k-- {
		in := chain[k]
		f := InlineFrame{Name: in.Origin.Name, CallFile: file, CallLine: int(in.CallLine), Depth: in.Level,
			File: file, Line: line, Base: bases[k]}
		if in.CallFile >= 0 {
			f.CallFile = di.files[in.CallFile]
		}
		fr.Inlines = append(fr.Inlines, f)
		file, line = f.CallFile, f.CallLine
	}
	return fr, true
}

func covers(ranges []dwarfsyms.Range, addr uint64) (uint64, bool) {
	for _, r := range ranges {
		if addr >= r.Addr && addr-r.Addr < r.Size {
			return r.Addr, true
		}
	}
	return 0, false
}
