package minidump

import (
	"fmt"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/rangeset"
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
	check := newRangeMap(merge)
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
	final := newRangeMap(truncateLower)
	for i := range mods {
		final.store(mods[i].Base, uint64(mods[i].Size), i)
	}
	entries := final.set.Entries()
	out := make([]ModuleRange, len(entries))
	for i, e := range entries {
		out[i] = ModuleRange{Index: e.Value, Start: e.Base, End: e.High}
	}
	return out
}

// rangeMap models Breakpad's RangeMap: disjoint ranges sorted by their high
// address, optionally with the kTruncateLower merge strategy. Ranges are
// kept in a B-tree, so a store is O(log n) (Breakpad's is O(n)).
type rangeMap struct {
	set           *rangeset.Set[int] // value: the module's index
	truncateLower bool
}

func newRangeMap(truncateLower bool) *rangeMap {
	return &rangeMap{set: rangeset.New[int](), truncateLower: truncateLower}
}

func (r *rangeMap) lookup(addr uint64) (int, bool) {
	if e := r.set.Ceil(addr); e != nil && e.Base <= addr {
		return e.Value, true
	}
	return 0, false
}

// store follows RangeMap::StoreRangeInternal. Each round stores the range,
// fails, or removes one overlap; at most three rounds are needed.
func (r *rangeMap) store(base, size uint64, index int) bool {
	for {
		if size == 0 || base+size-1 < base {
			return false
		}
		high := base + size - 1
		// The first stored range overlapping [base, high], if any: the one
		// with the lowest high >= base, when it starts at or below high.
		other := r.set.Ceil(base)
		if other == nil || other.Base > high {
			r.set.Insert(&rangeset.Entry[int]{Base: base, High: high, Value: index})
			return true
		}
		if !r.truncateLower {
			return false
		}
		switch {
		case base < other.Base:
			size = other.Base - base // keep the part below the other range
		case other.Base < base:
			// Truncate the other range to end below ours, then retry.
			r.set.Remove(other)
			other.High = base - 1
			r.set.Insert(other)
		default:
			return false
		}
	}
}
