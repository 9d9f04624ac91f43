package processor

import (
	"sort"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/rangeset"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// unloadedFinder is the walker's view of the unloaded module list: it
// stores ranges as walker.NewModuleMap does (in list order, a range that
// overlaps one stored, an empty or a wrapping one left out) but keeps
// only indexes into the state's list, and makes a walker.Module only for
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
	set := rangeset.New[int]()
	for i, m := range list {
		if m.Size == 0 || m.Base+m.Size-1 < m.Base {
			continue
		}
		end := m.Base + m.Size - 1
		if e := set.Ceil(m.Base); e != nil && e.Base <= end {
			continue // overlaps a stored module
		}
		set.Insert(&rangeset.Entry[int]{Base: m.Base, High: end, Value: i})
	}
	u := &unloadedFinder{list: list, sorted: make([]int, 0, set.Len()), made: map[int]*walker.Module{}}
	for _, e := range set.Entries() {
		u.sorted = append(u.sorted, e.Value)
	}
	return u
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
