package minidump

import (
	"fmt"
	"slices"
	"strings"
)

// ModuleRange is the address range Breakpad's processor gives a module for
// address lookups: [Start, End], End inclusive. It can be shorter than the
// module when a later module overlaps it. Index is the module's position in
// the list passed to BreakpadModuleRanges (file order).
type ModuleRange struct {
	Index      int
	Start, End uint64
}

// BreakpadModuleRanges reproduces how Breakpad's processor stores a module
// list, for printing and for finding the module of an address. The ranges are
// sorted and disjoint; Breakpad prints the modules in this order (with their
// own base and size) and looks addresses up in these ranges.
//
// On Linux and Android an overlapping module truncates the lower one (on
// Android a module starting inside the previous one is moved up, and
// /dev/ashmem/ mappings that overlap are ignored); a module identical to the
// one already holding its base is skipped. Elsewhere any overlap, and on
// every platform an empty or wrapping module, makes Breakpad discard the
// whole list: the error says why, and Breakpad then shows no modules at all.
func BreakpadModuleRanges(mods []Module, p Platform) ([]ModuleRange, error) {
	// Breakpad refuses lists longer than this; it also bounds our work.
	const maxModules = 2048
	if len(mods) > maxModules {
		return nil, fmt.Errorf("minidump: %d modules exceed Breakpad's limit of %d", len(mods), maxModules)
	}
	merge := p == PlatformLinux || p == PlatformAndroid
	android := p == PlatformAndroid

	// MinidumpModuleList::Read.
	var check rangeMap
	check.truncateLower = merge
	var lastEnd uint64
	for i := range mods {
		m := &mods[i]
		if m.Size == 0 || m.Base+uint64(m.Size)-1 < m.Base {
			return nil, fmt.Errorf("minidump: module %d (%s): bad range %#x+%#x", i, m.Name, m.Base, m.Size)
		}
		if m.nameErr {
			return nil, fmt.Errorf("minidump: module %d: name unreadable: %w", i, m.Err)
		}
		if m.Base == ^uint64(0) {
			return nil, fmt.Errorf("minidump: module %d (%s): bad base address", i, m.Name)
		}
		if j, ok := check.lookup(m.Base); ok {
			o := &mods[j]
			if o.Base == m.Base && o.Size == m.Size && o.Name == m.Name && o.CodeID == m.CodeID {
				continue
			}
		}
		base, size := m.Base, uint64(m.Size)
		if !check.store(base, size, i) {
			if android && strings.HasPrefix(m.Name, "/dev/ashmem/") {
				continue
			}
			if !android || base >= lastEnd {
				return nil, fmt.Errorf("minidump: module %d (%s) at %#x+%#x overlaps another", i, m.Name, m.Base, m.Size)
			}
			size -= lastEnd - base
			base = lastEnd
			if !check.store(base, size, i) {
				return nil, fmt.Errorf("minidump: module %d (%s) at %#x+%#x overlaps another after adjusting", i, m.Name, m.Base, m.Size)
			}
		}
		lastEnd = base + size
	}

	// BasicCodeModules, the copy the processor uses: every module stored
	// again, in file order and with the same strategy; failures are dropped.
	return storeModules(mods, merge), nil
}

// TruncatedModuleRanges stores mods, in file order, the way Breakpad's
// processor does on Linux and Android, whatever the platform and without
// ever rejecting the list: a module overlapping one stored earlier truncates
// the lower of the two, and a module that cannot be stored (empty, wrapping,
// or starting where a stored module starts) gets no range. The ranges are
// sorted and disjoint, as BreakpadModuleRanges' are.
func TruncatedModuleRanges(mods []Module) []ModuleRange {
	return storeModules(mods, true)
}

func storeModules(mods []Module, truncateLower bool) []ModuleRange {
	var final rangeMap
	final.truncateLower = truncateLower
	for i := range mods {
		final.store(mods[i].Base, uint64(mods[i].Size), i)
	}
	out := make([]ModuleRange, len(final.entries))
	for i, e := range final.entries {
		out[i] = ModuleRange{Index: e.index, Start: e.base, End: e.high}
	}
	return out
}

// rangeMap models Breakpad's RangeMap: disjoint ranges sorted by their high
// address, optionally with the kTruncateLower merge strategy.
type rangeMap struct {
	entries       []rangeEntry
	truncateLower bool
}

type rangeEntry struct {
	base, high uint64
	index      int
}

// lowerBound is the first entry whose high address is >= addr.
func (r *rangeMap) lowerBound(addr uint64) int {
	i, _ := slices.BinarySearchFunc(r.entries, addr, func(e rangeEntry, a uint64) int {
		if e.high < a {
			return -1
		}
		return 1
	})
	return i
}

func (r *rangeMap) lookup(addr uint64) (int, bool) {
	i := r.lowerBound(addr)
	if i < len(r.entries) && r.entries[i].base <= addr {
		return r.entries[i].index, true
	}
	return 0, false
}

// store follows RangeMap::StoreRangeInternal.
func (r *rangeMap) store(base, size uint64, index int) bool {
	for {
		if size == 0 || base+size-1 < base {
			return false
		}
		high := base + size - 1
		ib, ih := r.lowerBound(base), r.lowerBound(high)
		var other int
		switch {
		case ib != ih:
			other = ib
		case ih < len(r.entries) && r.entries[ih].base <= high:
			other = ih
		default:
			r.entries = slices.Insert(r.entries, ih, rangeEntry{base, high, index})
			return true
		}
		if !r.truncateLower {
			return false
		}
		ob := r.entries[other].base
		switch {
		case base < ob:
			size = ob - base // keep the part below the other range
		case ob < base:
			// Truncate the other range to end below ours, then retry.
			e := r.entries[other]
			r.entries = slices.Delete(r.entries, other, other+1)
			e.high = base - 1
			r.entries = slices.Insert(r.entries, r.lowerBound(e.high), e)
		default:
			return false
		}
	}
}
