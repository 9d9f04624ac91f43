package walker

import (
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/rangeset"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// Module is a code module as the walker and the printers see it.
type Module struct {
	Index    int  // position in the dump's module list (or unloaded module list when Unloaded)
	Unloaded bool // from the unloaded module list
	Base     uint64
	Size     uint64

	CodeFile, CodeID, DebugFile, DebugID, Version string

	// SymbolBase is the address the symbol file's module-relative addresses
	// are relative to. It is Base, except when one image is mapped as several
	// module entries (node's four entries): then it is the Base of the entry
	// that maps the image's start (see processor and docs). Breakpad always
	// uses Base, which misnames such frames.
	SymbolBase uint64
}

// Key returns the symbol supplier's key of m.
func (m *Module) Key() symfile.ModuleKey {
	return symfile.ModuleKey{CodeFile: m.CodeFile, CodeID: m.CodeID, DebugFile: m.DebugFile, DebugID: m.DebugID}
}

// Contains reports whether addr lies in m's range.
func (m *Module) Contains(addr uint64) bool {
	return addr >= m.Base && addr-m.Base < m.Size
}

// ModuleFinder finds the module containing an address (nil when none).
// A *ModuleMap is one; the processor serves unloaded modules through its
// own, which makes a Module only for an address a frame asks about.
type ModuleFinder interface {
	At(addr uint64) *Module
}

// ModuleMap finds the module containing an address. Like Breakpad's range
// map, ranges are stored in list order and a range overlapping one already
// stored is not stored (lookups never find it); empty and wrapping ranges are
// not stored either. The zero value and nil are empty maps.
type ModuleMap struct {
	sorted []*Module // by Base, non-overlapping
	// lookup, when set, holds the inclusive range each sorted module covers
	// in place of [Base, Base+Size) (NewModuleMapRanges).
	lookup [][2]uint64
}

// NewModuleMapRanges builds a map in which mods[i] covers the inclusive
// range ranges[i] instead of its own; mods must be sorted by range and the
// ranges disjoint. Breakpad's microdump processing shrinks overlapping
// Android module ranges while printing the modules' own (package microdump).
func NewModuleMapRanges(mods []*Module, ranges [][2]uint64) *ModuleMap {
	return &ModuleMap{sorted: mods, lookup: ranges}
}

// StoredRanges returns the indexes of the ranges a module map keeps of
// a list taken in order, by address: like Breakpad's range map, a range
// overlapping one already kept is left out, and so are empty and
// wrapping ranges. rangeOf gives list entry i's base and size. It is
// O(n log n): the kept ranges are held in a B-tree while the list is read.
func StoredRanges(n int, rangeOf func(i int) (base, size uint64)) []int {
	set := rangeset.New[int]()
	for i := range n {
		base, size := rangeOf(i)
		if size == 0 || base+size-1 < base {
			continue
		}
		end := base + size - 1
		if e := set.Ceil(base); e != nil && e.Base <= end {
			continue // overlaps a kept range
		}
		set.Insert(&rangeset.Entry[int]{Base: base, High: end, Value: i})
	}
	kept := make([]int, 0, set.Len())
	for _, e := range set.Entries() {
		kept = append(kept, e.Value)
	}
	return kept
}

// At returns the module containing addr, or nil.
func (mm *ModuleMap) At(addr uint64) *Module {
	if mm == nil {
		return nil
	}
	if mm.lookup != nil { // NewModuleMapRanges
		i := sort.Search(len(mm.lookup), func(i int) bool { return mm.lookup[i][1] >= addr })
		if i < len(mm.lookup) && mm.lookup[i][0] <= addr {
			return mm.sorted[i]
		}
		return nil
	}
	i := sort.Search(len(mm.sorted), func(i int) bool { return mm.sorted[i].Base+mm.sorted[i].Size-1 >= addr })
	if i < len(mm.sorted) && mm.sorted[i].Base <= addr {
		return mm.sorted[i]
	}
	return nil
}

// Sorted returns the stored modules in address order (Breakpad's module
// "sequence", the order its module list is printed in).
func (mm *ModuleMap) Sorted() []*Module {
	if mm == nil {
		return nil
	}
	return mm.sorted
}

// SymbolStatus is the outcome of asking for a module's symbols.
type SymbolStatus uint8

// Symbol statuses.
const (
	SymbolsNotTried SymbolStatus = iota // no frame or scan needed them
	SymbolsLoaded                       // a symbol file was found and parsed
	SymbolsMissing                      // no symbol file (or it could not be read)
	SymbolsCorrupt                      // a symbol file was found but is corrupt
)

func (s SymbolStatus) String() string {
	switch s {
	case SymbolsLoaded:
		return "loaded"
	case SymbolsMissing:
		return "missing"
	case SymbolsCorrupt:
		return "corrupt"
	}
	return "not tried"
}

// SymbolSource gives the symbols of modules. Implementations must be safe
// for concurrent use and should ask their supplier at most once per module.
type SymbolSource interface {
	// Symbols returns m's symbol file (nil when none) and the status.
	// A corrupt file may still come with the records that parsed.
	Symbols(m *Module) (*symfile.File, SymbolStatus)
}
