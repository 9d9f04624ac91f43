package processor

import (
	"sort"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// unloadedFinder is the walker's view of the unloaded module list: it
// keeps the ranges a module map keeps (walker.StoredRanges), as indexes
// into the state's list, and makes a walker.Module only for
// a module a frame lands in. A dump may list a million unloaded modules
// (docs/limits.md); a walker copy of each beside the state's doubled the
// peak memory.
type unloadedFinder struct {
	list   []*Module // the state's unloaded modules, in dump order
	sorted []int     // indexes into list of the stored ranges, by address

	mu   sync.Mutex // the walks of several threads ask at once
	made map[int]*walker.Module
}

func newUnloadedFinder(list []*Module) *unloadedFinder {
	sorted := walker.StoredRanges(len(list), func(i int) (uint64, uint64) { return list[i].Base, list[i].Size })
	return &unloadedFinder{list: list, sorted: sorted, made: map[int]*walker.Module{}}
}

// At returns the walker's module of the unloaded module containing addr,
// the same one for every address in it; nil when none.
func (u *unloadedFinder) At(addr uint64) *walker.Module {
	i := sort.Search(len(u.sorted), func(k int) bool {
		m := u.list[u.sorted[k]]
		return m.Base+m.Size-1 >= addr
	})
	if i == len(u.sorted) || u.list[u.sorted[i]].Base > addr {
		return nil
	}
	idx := u.sorted[i]
	u.mu.Lock()
	defer u.mu.Unlock()
	if w, ok := u.made[idx]; ok {
		return w
	}
	m := u.list[idx]
	w := &walker.Module{Index: idx, Unloaded: true, Base: m.Base, Size: m.Size, CodeFile: m.CodeFile, SymbolBase: m.SymbolBase}
	u.made[idx] = w
	return w
}
