package microdump

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/rangeset"
)

// moduleMap is an address range map with Breakpad's two merge rules for
// modules: exclusive ranges (an overlapping module is refused), or, for
// Android, "truncate upper": of two overlapping modules the one with the
// higher range loses the overlap. The rules are reproduced exactly because
// they decide which module an address belongs to and which modules are listed.
//
// Each store is O(log n): the ranges are kept in a B-tree, and where
// Breakpad's loop walks the new range up past every stored range ending
// inside it, one search finds the last of them.
type moduleMap struct {
	truncateUpper bool
	set           *rangeset.Set[int] // disjoint ranges by high; value: index of the module
}

type rangeEntry struct {
	base, high uint64 // inclusive range
	mod        int    // index of the module
}

// entries returns the stored ranges in address order.
func (m *moduleMap) entries() []rangeEntry {
	if m.set == nil {
		return nil
	}
	es := m.set.Entries()
	out := make([]rangeEntry, len(es))
	for i, e := range es {
		out[i] = rangeEntry{e.Base, e.High, e.Value}
	}
	return out
}

// store adds [base, base+size) for module mod and reports whether it was kept.
func (m *moduleMap) store(base, size uint64, mod int) bool {
	if m.set == nil {
		m.set = rangeset.New[int]()
	}
	if size == 0 || base+(size-1) < base {
		return false // empty or wrapping range
	}
	high := base + size - 1
	// Stored ranges ending inside the new one, below its high: Breakpad
	// moves the new base past each in turn, so past the last of them.
	if below := m.set.Floor(high - 1); high > 0 && below != nil && below.High >= base {
		if !m.truncateUpper {
			return false
		}
		base = below.High + 1
	}
	// The range above, when it starts inside the new one, keeps only its
	// part above the new range (truncate upper), unless it ends first.
	if above := m.set.Ceil(high); above != nil && above.Base <= high {
		if !m.truncateUpper || above.High == high {
			return false
		}
		above.Base = high + 1
	}
	m.set.Insert(&rangeset.Entry[int]{Base: base, High: high, Value: mod})
	return true
}

// storeModules resolves the M records into the module list the processor
// sees, in address order, as Breakpad's two module maps resolve them (see
// replayModules). Real and hostile microdumps alike mostly list disjoint
// modules, which every rule keeps as they are: then the list is the
// records sorted by address, without a map (a 64 MiB microdump has 685,906
// module lines; docs/limits.md).
func (p *parser) storeModules() []Module {
	mods := p.mods
	if !disjointSorted(mods) {
		order := make([]int32, len(mods))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(mods[a].Base, mods[b].Base) })
		if !disjointInOrder(mods, order) {
			return p.replayModules()
		}
		sorted := make([]Module, len(mods))
		for i, j := range order {
			sorted[i] = mods[j]
		}
		mods = sorted
	}
	for i := range mods {
		m := &mods[i]
		m.LookupBase, m.LookupEnd = m.Base, m.Base+m.Size-1
	}
	return mods
}

// disjointSorted tells whether mods are valid ranges in ascending address
// order, none overlapping the next; mods in descending order, none
// overlapping, are reversed in place to make them so.
func disjointSorted(mods []Module) bool {
	for i := range mods {
		if !validRange(&mods[i]) {
			return false
		}
	}
	ascending, descending := true, true
	for i := 1; i < len(mods) && (ascending || descending); i++ {
		ascending = ascending && below(&mods[i-1], &mods[i])
		descending = descending && below(&mods[i], &mods[i-1])
	}
	if !ascending && descending {
		slices.Reverse(mods)
	}
	return ascending || descending
}

// below tells whether the valid range of a ends below b's start.
func below(a, b *Module) bool { return a.Base+(a.Size-1) < b.Base }

// disjointInOrder is disjointSorted for mods taken in the given order.
func disjointInOrder(mods []Module, order []int32) bool {
	for i, j := range order {
		if !validRange(&mods[j]) {
			return false
		}
		if i > 0 && !below(&mods[order[i-1]], &mods[j]) {
			return false
		}
	}
	return true
}

// validRange: a module map refuses an empty range or one wrapping past the
// top of the address space.
func validRange(m *Module) bool {
	return m.Size != 0 && m.Base+(m.Size-1) >= m.Base
}

// replayModules stores the modules in input order in Breakpad's module
// map, warning of those refused. Breakpad's processor then copies the
// parsed map, re-inserting each module's original range in the map's
// order; with overlapping ranges the copy can resolve differently from the
// first map, so the copy is reproduced here.
func (p *parser) replayModules() []Module {
	first := moduleMap{}
	kept := make([]Module, 0, len(p.mods))
	for i, m := range p.mods {
		first.truncateUpper = p.upperFrom >= 0 && i >= p.upperFrom
		if first.store(m.Base, m.Size, len(kept)) {
			kept = append(kept, m)
		} else {
			line := int(p.modLines[i])
			p.warn(warnModule, line, fmt.Sprintf("line %d: module %s could not be stored", line, m.Name))
		}
	}
	stored := first.entries()
	if p.upperFrom >= 0 {
		// Without truncation the stored ranges are the modules' own and
		// disjoint, so the copy would keep every one as it is.
		final := moduleMap{truncateUpper: true}
		for _, e := range stored {
			m := kept[e.mod]
			final.store(m.Base, m.Size, e.mod)
		}
		stored = final.entries()
	}
	out := make([]Module, 0, len(stored))
	for _, e := range stored {
		m := kept[e.mod]
		m.LookupBase, m.LookupEnd = e.base, e.high
		out = append(out, m)
	}
	return out
}
