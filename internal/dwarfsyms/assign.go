package dwarfsyms

import (
	"math"
	"sort"
)

// funcRange is one range of a function, for the sweep.
type funcRange struct {
	addr, size uint64
	fn         *Func
}

func within(addr, start, size uint64) bool { return addr-start < size }

// assignLines gives each function the parts of lines its ranges cover, as
// Breakpad's DwarfCUToModule::AssignLinesToFunctions: one sweep over the
// address space, from one start or end of a line or range to the next,
// where each piece covered by both a line and a range becomes a line of
// the range's function. funcs is sorted by address in place (the order the
// functions are then added to the module).
func assignLines(funcs []*Func, lines []Line) {
	sort.SliceStable(funcs, func(i, j int) bool { return funcs[i].Addr() < funcs[j].Addr() })
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].Addr < lines[j].Addr })
	var ranges []funcRange
	for _, fn := range funcs {
		for _, r := range fn.Ranges {
			if r.Size != 0 {
				ranges = append(ranges, funcRange{r.Addr, r.Size, fn})
			}
		}
	}
	sort.SliceStable(ranges, func(i, j int) bool { return ranges[i].addr < ranges[j].addr })
	ri, li := 0, 0
	var current uint64
	switch {
	case len(ranges) > 0 && len(lines) > 0:
		current = min(ranges[0].addr, lines[0].Addr)
	case len(lines) > 0:
		current = lines[0].Addr
	case len(ranges) > 0:
		current = ranges[0].addr
	default:
		return
	}
	// Some producers mark removed code with an address of -1.
	if current == math.MaxUint64 {
		return
	}
	for ri < len(ranges) || li < len(lines) {
		var r *funcRange
		var l *Line
		if ri < len(ranges) {
			r = &ranges[ri]
		}
		if li < len(lines) {
			l = &lines[li]
		}
		var next uint64
		inRange := r != nil && current >= r.addr
		inLine := l != nil && current >= l.Addr
		switch {
		case inRange && inLine:
			rangeLeft := r.size - (current - r.addr)
			lineLeft := l.Size - (current - l.Addr)
			next = current + min(rangeLeft, lineLeft)
			r.fn.Lines = append(r.fn.Lines, Line{Addr: current, Size: next - current, File: l.File, Number: l.Number})
		case inRange:
			if l != nil && within(l.Addr, r.addr, r.size) {
				next = l.Addr
			} else {
				next = r.addr + r.size
			}
		case inLine:
			if r != nil && within(r.addr, l.Addr, l.Size) {
				next = r.addr
			} else {
				next = l.Addr + l.Size
			}
		default:
			switch {
			case r != nil && l != nil:
				next = min(r.addr, l.Addr)
			case r != nil:
				next = r.addr
			default:
				next = l.Addr
			}
		}
		if next == 0 || next == math.MaxUint64 || next <= current {
			break
		}
		for ri < len(ranges) && next >= ranges[ri].addr && !within(next, ranges[ri].addr, ranges[ri].size) {
			ri++
		}
		for li < len(lines) && next >= lines[li].Addr && !within(next, lines[li].Addr, lines[li].Size) {
			li++
		}
		current = next
	}
}
