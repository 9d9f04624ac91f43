package symfile

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// lazySlots is a table of n pointers, each set once, that lookups read
// without a lock: a File keeps its parsed functions and CFI blocks in
// them. It is two-level because a walk parses a handful of a file's
// records: a flat table of one pointer per record was 16.5 MB for the
// stress file's 2.07 M CFI ranges, every page of which the collector then
// read; the top level here is one pointer per slotPageLen records and a
// page is made on its first use. (A map under a read lock, as functions
// had, made two batch workers write the lock's one cache line on every
// lookup.)
type lazySlots[T any] struct {
	once  sync.Once
	pages []atomic.Pointer[slotPage[T]]
}

type slotPage[T any] [slotPageLen]atomic.Pointer[T]

const (
	slotPageBits = 8
	slotPageLen  = 1 << slotPageBits
)

// slot returns where record at (of n) is kept, and the bytes of table it
// made for that (for HeapBytes).
func (s *lazySlots[T]) slot(at, n int) (p *atomic.Pointer[T], made int64) {
	s.once.Do(func() {
		s.pages = make([]atomic.Pointer[slotPage[T]], (n+slotPageLen-1)>>slotPageBits)
		made = int64(len(s.pages)) * int64(unsafe.Sizeof(atomic.Pointer[slotPage[T]]{}))
	})
	top := &s.pages[at>>slotPageBits]
	page := top.Load()
	if page == nil {
		if top.CompareAndSwap(nil, new(slotPage[T])) {
			made += int64(unsafe.Sizeof(slotPage[T]{}))
		}
		page = top.Load()
	}
	return &page[at&(slotPageLen-1)], made
}
