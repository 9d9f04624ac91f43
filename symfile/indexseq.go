package symfile

import (
	"errors"
	"math"
	"slices"
	"sort"
	"sync"
	"unsafe"
)

// Bytes of the file that a kept record takes at least, line end included:
// they bound the records of a chunk, and so the arenas' sizes.
const (
	funcBytesPerRecord = 10 // "FUNC a s p n"
	cfiBytesPerRecord  = 16 // "STACK CFI INIT a s r"
	// publicBytesPerRecord: "PUBLIC a p"
	publicBytesPerRecord = 8
)

// sequencer places the FUNC, STACK CFI INIT and PUBLIC records of a file on
// disk in three arenas of reserved memory (reserve), chunk after chunk in
// file order, as the workers finish them: a chunk that finishes before the
// chunks ahead of it waits, with its worker's arrays, and its worker takes
// other arrays. Each arena is then one array of sorted runs, written once,
// that merge sorts in place (mergeRunsInPlace). Appending each chunk's
// records to arrays of its own and merging those into new arrays wrote
// every record twice, into fresh memory: a third of the page faults of a
// first run on the 1.33 GB stress file, and on a machine where a fault
// costs 20 us a tenth of its CPU time.
type sequencer struct {
	mu     sync.Mutex
	placed sync.Cond           // on mu: s.next moved
	next   int                 // the chunk placed next
	gone   bool                // a worker stopped (a fault): nobody waits
	parked map[int]*chunkIndex // finished chunks waiting for the ones before
	spare  []chunkScratch      // arrays of chunks placed from parked
	chunk  int                 // the chunk size: a chunk read into a buffer is at most twice it
	held   []*reservation      // the workers' arrays (newScratch)
	sets   []chunkScratch      // the same arrays, whole
	funcs  kindArena[funcEntry, funcEntry32]
	cfi    kindArena[rangeEntry, cfiEntry32]
	pubs   kindArena[pubEntry, pubEntry32]
}

// newSequencer reserves the arenas for a file cut at bounds, with room
// for as many records of each kind as the chunks' bytes could hold, and
// adds their release to f.unmap. It returns nil for data in memory
// (NewFile), or where memory cannot be reserved (not unix, or a 32-bit
// address space): merge then works from arrays of the heap.
func newSequencer(f *File, bounds []int, chunkSize int, disk *diskSource) *sequencer {
	if disk == nil || f.unmap == nil || len(bounds) < 2 {
		return nil
	}
	s := &sequencer{parked: map[int]*chunkIndex{}, chunk: chunkSize}
	s.placed.L = &s.mu
	advise := disk.advise
	if advise == nil {
		advise = madvise
	}
	wide := disk.wide || !narrowFile(uint64(len(f.data)))
	s.funcs.narrowed, s.cfi.narrowed, s.pubs.narrowed = narrowFuncs, narrowCFI, narrowPubs
	ok := s.funcs.reserve(bounds, funcBytesPerRecord, advise, wide) && s.cfi.reserve(bounds, cfiBytesPerRecord, advise, wide) &&
		s.pubs.reserve(bounds, publicBytesPerRecord, advise, wide)
	held := []*reservation{s.funcs.held(), s.cfi.held(), s.pubs.held()}
	if !ok {
		for _, r := range held {
			r.release()
		}
		return nil
	}
	unmap := f.unmap
	f.unmap = func() error {
		errs := []error{unmap()}
		for _, r := range held {
			errs = append(errs, r.release())
		}
		return errors.Join(errs...)
	}
	f.pubMem = s.pubs.held()
	return s
}

// maxParked bounds the chunks waiting for the ones before, and so the
// arrays held (a worker descheduled for long would let the others park
// chunk after chunk).
const maxParked = 2

// done places chunk i's records, and those of the parked chunks after it,
// or parks it; scratch is the worker's arrays, which c holds. When
// maxParked chunks wait already, it waits for its turn. The chunk to place
// next is never waiting here: the chunks are handed out in order, so it
// is being indexed, or parked and placed with the chunk before it.
func (s *sequencer) done(i int, c *chunkIndex, scratch *chunkScratch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i != s.next && len(s.parked) >= maxParked && !s.gone {
		s.placed.Wait()
	}
	if s.gone {
		return // the pass fails: see stop
	}
	if i != s.next {
		s.parked[i] = c
		if k := len(s.spare); k > 0 {
			*scratch = s.spare[k-1]
			s.spare = s.spare[:k-1]
		} else {
			*scratch = s.newScratchLocked()
		}
		return
	}
	scratch.take(c)
	s.place(c)
	for s.next++; s.parked[s.next] != nil; s.next++ {
		p := s.parked[s.next]
		delete(s.parked, s.next)
		var back chunkScratch
		back.take(p)
		s.place(p)
		s.spare = append(s.spare, back)
	}
	s.placed.Broadcast()
}

// newScratch returns a worker's arrays, with room for the records of a
// chunk read into its buffer (at most twice the chunk size: readPieces)
// in reserved memory, committed only where written: arrays of the heap
// grew by doubling, copying and faulting in twice their final size, for
// each worker and each parked chunk (3,400 of the 29,400 page faults of
// a first run on the stress file with two workers). A larger chunk
// (indexed through the mapping) outgrows them onto the heap, as does
// everything where memory cannot be reserved.
func (s *sequencer) newScratch() chunkScratch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newScratchLocked()
}

func (s *sequencer) newScratchLocked() chunkScratch {
	set := chunkScratch{
		funcs: reserveArray[funcEntry](s, 2*s.chunk/funcBytesPerRecord+1),
		cfi:   reserveArray[rangeEntry](s, 2*s.chunk/cfiBytesPerRecord+1),
		pubs:  reserveArray[pubEntry](s, 2*s.chunk/publicBytesPerRecord+1),
	}
	s.sets = append(s.sets, set)
	return set
}

// newSortBuf returns a worker's buffer for sortRanges, with room for a
// chunk's STACK CFI INIT records in reserved memory, committed only where
// written: on the heap it grew with the largest chunk so far, each time
// fresh memory, and the garbage started collections (1,400-3,300 more
// page faults in a first run on the stress file). A worker keeps it while
// its sets of arrays change hands (parked chunks), so there is one per
// worker; releaseScratch unmaps it.
func (s *sequencer) newSortBuf() []rangeEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return reserveArray[rangeEntry](s, 2*s.chunk/cfiBytesPerRecord+1)
}

// lendScratch gives the arenas a set of the workers' arrays, idle once
// every chunk is placed, for what their sort sets aside
// (mergeRunsInPlace): the arrays' first pages are in memory already, and
// the room of a chunk's records spares the doublings of a buffer of the
// heap (870 of the 5,600 page faults of a first run on the stress file,
// with the arenas in huge pages). releaseScratch unmaps them after merge.
func (s *sequencer) lendScratch() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sets) > 0 {
		set := s.sets[0]
		s.funcs.lend(set.funcs)
		s.cfi.lend(set.cfi)
		s.pubs.lend(set.pubs)
	}
}

// reserveArray returns an empty array with room for n records in reserved
// memory that s holds, or nil.
func reserveArray[T any](s *sequencer, n int) []T {
	var z T
	mem, free := reserve(int64(n) * int64(unsafe.Sizeof(z)))
	if mem == nil {
		return nil
	}
	s.held = append(s.held, &reservation{mem: mem, used: len(mem), free: free})
	return fromBytes[T](mem)[:0:n]
}

// releaseScratch unmaps the workers' arrays, once every chunk is placed
// (or the pass failed and nothing reads them).
func (s *sequencer) releaseScratch() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.held {
		r.release()
	}
	s.held, s.sets = nil, nil
	s.funcs.lend(nil)
	s.cfi.lend(nil)
	s.pubs.lend(nil)
}

// stop is called by a worker that leaves before the chunks are done (a
// fault on the mapping, which the pass returns): the chunk it held will
// never be placed, so no other worker may wait for it.
func (s *sequencer) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone = true
	s.placed.Broadcast()
}

// place copies c's records to the arenas and points c at the copies,
// which are in the narrow layout where the arenas are.
func (s *sequencer) place(c *chunkIndex) {
	c.funcs, c.funcs32 = s.funcs.add(c.funcs)
	c.cfi, c.cfi32 = s.cfi.add(c.cfi)
	c.pubs, c.pubs32 = s.pubs.add(c.pubs)
}

// kindArena is the arena of one kind of record (indexlayout.go): wide for
// a file of 4 GiB or more, else narrow, the records converted as they are
// copied in. Should a record not fit the narrow layout (a STACK CFI INIT
// range of more than 4 GiB), the records of its chunk and of every chunk
// after it are kept wide on the heap, and merge widens the ones placed
// before: the file's records of that kind take the wide layout, exactly.
type kindArena[W any, N widener[W]] struct {
	wide     arena[W]
	narrow   arena[N]
	isWide   bool
	broke    bool                        // a record did not fit the narrow layout
	narrowed func(dst []N, src []W) bool // converts a chunk's records
}

func (k *kindArena[W, N]) reserve(bounds []int, per int, advise func([]byte, int) error, wide bool) bool {
	k.isWide = wide
	if wide {
		return k.wide.reserve(bounds, per, advise)
	}
	return k.narrow.reserve(bounds, per, advise)
}

// held is the reservation of the arena in use.
func (k *kindArena[W, N]) held() *reservation {
	if k.isWide {
		return k.wide.held
	}
	return k.narrow.held
}

// lend gives the arena the worker's array w, for its sort's overlaps
// (lendScratch); nil takes it back.
func (k *kindArena[W, N]) lend(w []W) {
	k.wide.aside = w[:0]
	k.narrow.aside = fromBytes[N](asBytes(w[:cap(w)]))[:0]
}

// add copies recs to the arena; it returns the copy, wide or narrow.
func (k *kindArena[W, N]) add(recs []W) ([]W, []N) {
	if k.isWide {
		return k.wide.add(recs), nil
	}
	if !k.broke {
		if out, ok := addNarrowed(&k.narrow, recs, k.narrowed); ok {
			return nil, out
		}
		k.broke = true
	}
	return slices.Clone(recs), nil
}

// sorted returns the records that of gives of each chunk, sorted (mergeArena).
func (k *kindArena[W, N]) sorted(chunks []*chunkIndex, ofW func(*chunkIndex) []W, ofN func(*chunkIndex) []N,
	cmpW func(a, b W) int, cmpN func(a, b N) int) table[W, N] {
	switch {
	case k.isWide:
		return table[W, N]{wide: mergeArena(chunks, &k.wide, ofW, cmpW)}
	case k.broke:
		var runs [][]W
		n := 0
		for _, c := range chunks {
			r := ofW(c)
			if nr := ofN(c); len(nr) > 0 {
				r = widenAll[W](nr)
			}
			if len(r) > 0 {
				runs, n = append(runs, r), n+len(r)
			}
		}
		return table[W, N]{wide: mergeSortedRuns(runs, n, cmpW)}
	}
	return table[W, N]{narrow: mergeArena(chunks, &k.narrow, ofN, cmpN)}
}

// keep gives back the pages of the arena in use past t's records
// (arena.keep).
func (k *kindArena[W, N]) keep(t table[W, N]) {
	if k.isWide {
		k.wide.keep(t.wide)
	} else {
		k.narrow.keep(t.narrow)
	}
}

// arena is one reserved array that chunks' records are appended to.
type arena[T any] struct {
	held  *reservation
	all   []T
	n     int
	runs  []int // start of each chunk's records, and n at the end
	spilt bool  // a chunk outgrew the arena: its records are on the heap
	huge  hugeAdvice
	aside []T // room for the sort's overlaps (lendScratch), or nil
}

// reserve makes room for one record per per bytes of each chunk, in
// memory aligned for huge pages where the kernel gives them (hugeAdvice).
func (a *arena[T]) reserve(bounds []int, per int, advise func([]byte, int) error) bool {
	var z T
	size := int64(unsafe.Sizeof(z))
	total := int64(0)
	for i := 1; i < len(bounds); i++ {
		total += int64((bounds[i]-bounds[i-1])/per + 1)
	}
	if total > math.MaxInt/size {
		return false
	}
	a.huge = newHugeAdvice(total*size, int64(bounds[len(bounds)-1]), advise)
	mem, free := reserveAligned(total*size, a.huge.size)
	if mem == nil {
		return false
	}
	a.held = &reservation{mem: mem, used: len(mem), free: free}
	a.all = fromBytes[T](mem)[:total]
	a.huge.grown(mem, 0)
	return true
}

// add appends recs, returning the arena's copy (or a copy on the heap
// when it does not fit, which a correct bound never leaves).
func (a *arena[T]) add(recs []T) []T {
	out, ok := a.room(len(recs))
	if !ok {
		return append([]T(nil), recs...)
	}
	copy(out, recs)
	a.commit(len(recs))
	return out
}

// addNarrowed is add for a narrow arena (kindArena): it appends recs
// converted by narrowed, or reports that one does not fit the narrow
// layout.
func addNarrowed[W, N any](a *arena[N], recs []W, narrowed func(dst []N, src []W) bool) ([]N, bool) {
	out, ok := a.room(len(recs))
	if !ok {
		out = make([]N, len(recs))
		return out, narrowed(out, recs)
	}
	if !narrowed(out, recs) {
		return nil, false
	}
	a.commit(len(recs))
	return out, true
}

// room returns the arena's next n entries, or false when they do not fit
// (the arena is then spilt: add's copies go to the heap).
func (a *arena[T]) room(n int) ([]T, bool) {
	if n > len(a.all)-a.n {
		a.spilt = true
		return nil, false
	}
	return a.all[a.n : a.n+n : a.n+n], true
}

// commit appends the n entries room returned, written, as a run.
func (a *arena[T]) commit(n int) {
	a.runs = append(a.runs, a.n)
	a.n += n
	if a.huge.size > 0 {
		a.huge.grown(a.held.mem, len(asBytes(a.all[:a.n])))
	}
}

// sorted returns the arena's records sorted by cmp, in place where the
// runs overlap little (mergeRunsInPlace), else merged into a new array
// of the heap (mergeRuns); ok is false when a chunk spilt, and the caller
// merges the chunks' arrays instead.
func (a *arena[T]) sorted(cmp func(a, b T) int) (out []T, ok bool) {
	if a.spilt {
		return nil, false
	}
	all := a.all[:a.n:a.n] // the capacity is the records' (HeapBytes), not the reservation's
	bounds := append(a.runs, a.n)
	if k, e := mergeRunsInPlace(all, bounds, cmp, a.aside); k < len(bounds)-1 {
		runs := [][]T{all[:e]}
		for j := k; j+1 < len(bounds); j++ {
			if bounds[j] < bounds[j+1] {
				runs = append(runs, all[bounds[j]:bounds[j+1]])
			}
		}
		return mergeSortedRuns(runs, a.n, cmp), true
	}
	return all, true
}

// keep gives back the arena's pages past out, or all of them when out is
// not the arena's (see reservation.keep).
func (a *arena[T]) keep(out []T) {
	if a.held != nil {
		a.held.keep(asBytes(out))
	}
}

// mergeRunsInPlace sorts a, the sorted runs a[bounds[k]:bounds[k+1]],
// by merging each run into the sorted prefix before it: a run that starts
// after the prefix's end is already in place, and one that overlaps it
// is merged with the overlap, copied aside. It stops when the entries
// moved would exceed twice len(a) (runs that each overlap much of what
// came before) and returns the first run not merged and the end of the
// sorted prefix; it returns len(bounds)-1 when a is sorted. The overlaps
// are set aside in aside's room, then in a buffer of the heap.
func mergeRunsInPlace[T any](a []T, bounds []int, cmp func(a, b T) int, aside []T) (int, int) {
	moved, e := 0, 0
	for k := 0; k+1 < len(bounds); k++ {
		lo, hi := bounds[k], bounds[k+1]
		if lo == hi || e == 0 || cmp(a[e-1], a[lo]) < 0 {
			e = hi
			continue
		}
		p := sort.Search(e, func(i int) bool { return cmp(a[i], a[lo]) > 0 })
		if moved += e - p; moved > 2*len(a) {
			return k, e
		}
		aside = append(aside[:0], a[p:e]...)
		mergeInto(a[p:hi], aside, cmp)
		e = hi
	}
	return len(bounds) - 1, e
}

// mergeInto merges x with the sorted run that fills the end of dst after
// len(x) entries, into dst, from the left: the write position never
// passes the run's next entry.
func mergeInto[T any](dst, x []T, cmp func(a, b T) int) {
	i, j, w := 0, len(x), 0
	for i < len(x) && j < len(dst) {
		if cmp(dst[j], x[i]) < 0 {
			dst[w] = dst[j]
			j++
		} else {
			dst[w] = x[i]
			i++
		}
		w++
	}
	copy(dst[w:], x[i:]) // the run's rest is in place
}

// reservation is an arena's memory (reserve).
type reservation struct {
	mu   sync.Mutex
	mem  []byte // the whole reservation, nil once released
	used int    // bytes of it in use
	free func() error
}

// keep gives back the pages after used, the records that merge kept
// (its filters drop duplicates, overlapping ranges and records past the
// error limit), or all of them when used does not start the reservation
// (merge copied the records) or is empty. The pages are dropped (releasePages); the address
// range is unmapped by release.
func (r *reservation) keep(used []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(used) == 0 || len(r.mem) == 0 || uintptrOf(used) != uintptrOf(r.mem) {
		r.releaseLocked()
		return
	}
	r.used = len(used)
	releasePages(r.mem, r.used, len(r.mem))
}

// release unmaps the reservation; later calls do nothing.
func (r *reservation) release() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.releaseLocked()
}

func (r *reservation) releaseLocked() error {
	if r.mem == nil {
		return nil
	}
	r.mem, r.used = nil, 0
	return r.free()
}
