package symfile

import "container/heap"

// mergeChunkRuns merges the chunks' arrays that of returns, each sorted by
// cmp (sortRuns), into one new array sorted by cmp, which must be a total
// order (every comparator here ends with the file offset). It writes each
// entry once: concatenating the arrays and then merging the runs of the
// concatenation (sortByAddr) wrote each entry two to nine times more, in
// a buffer as large as the array, fresh memory that cost a quarter of the
// page faults of a first run on the stress file.
//
// The chunks of a symbol file seldom interleave much (rounds of a file,
// sections of a module), so while one run's entries come before every
// other run's head they are copied whole, found by galloping.
func mergeChunkRuns[T any](chunks []*chunkIndex, of func(*chunkIndex) []T, cmp func(a, b T) int) []T {
	var runs [][]T
	n := 0
	for _, c := range chunks {
		if r := of(c); len(r) > 0 {
			runs = append(runs, r)
			n += len(r)
		}
	}
	return mergeSortedRuns(runs, n, cmp)
}

// mergeArena returns the records that of gives of each chunk, sorted by
// cmp: those of the arena a when the chunks' records are there (sorted in
// place), else merged from the chunks' arrays.
func mergeArena[T any](chunks []*chunkIndex, a *arena[T], of func(*chunkIndex) []T, cmp func(a, b T) int) []T {
	if a != nil {
		if out, ok := a.sorted(cmp); ok {
			return out
		}
	}
	return mergeChunkRuns(chunks, of, cmp)
}

// mergeKind is mergeArena for one kind of record: sorted in its arena k
// (kindArena.sorted), or, without one, merged from the chunks' wide arrays.
func mergeKind[W any, N widener[W]](chunks []*chunkIndex, k *kindArena[W, N], ofW func(*chunkIndex) []W,
	ofN func(*chunkIndex) []N, cmpW func(a, b W) int, cmpN func(a, b N) int) table[W, N] {
	if k == nil {
		return table[W, N]{wide: mergeChunkRuns(chunks, ofW, cmpW)}
	}
	return k.sorted(chunks, ofW, ofN, cmpW, cmpN)
}

// seqKind returns one of s's arenas, or nil when s is.
func seqKind[W any, N widener[W]](s *sequencer, which func(*sequencer) *kindArena[W, N]) *kindArena[W, N] {
	if s == nil {
		return nil
	}
	return which(s)
}

// mergeSortedRuns merges the non-empty sorted runs, n entries in all, into
// a new array.
func mergeSortedRuns[T any](runs [][]T, n int, cmp func(a, b T) int) []T {
	h := runHeap[T]{runs: runs, cmp: cmp}
	out := make([]T, 0, n)
	heap.Init(&h)
	for len(h.runs) > 1 {
		top := h.runs[0]
		next := h.runs[1] // the smallest head of the others is a child of the root
		if len(h.runs) > 2 && cmp(h.runs[2][0], next[0]) < 0 {
			next = h.runs[2]
		}
		k := gallop(top, next[0], cmp)
		out = append(out, top[:k]...)
		if k == len(top) {
			heap.Pop(&h)
		} else {
			h.runs[0] = top[k:]
			heap.Fix(&h, 0)
		}
	}
	if len(h.runs) == 1 {
		out = append(out, h.runs[0]...)
	}
	return out
}

// gallop returns the number of entries of the sorted run a that come
// before v (at least 1: a[0] does). It looks at entries 1, 3, 7, 15, ...
// and then searches the last step, so a short prefix costs few
// comparisons and a long one no more than twice a binary search.
func gallop[T any](a []T, v T, cmp func(a, b T) int) int {
	prev, i := 0, 1 // a[prev] comes before v
	for i < len(a) && cmp(a[i], v) < 0 {
		prev, i = i, 2*i+1
	}
	lo, hi := prev+1, min(i, len(a))
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cmp(a[m], v) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// runHeap orders sorted runs by their first entry.
type runHeap[T any] struct {
	runs [][]T
	cmp  func(a, b T) int
}

func (h *runHeap[T]) Len() int           { return len(h.runs) }
func (h *runHeap[T]) Less(i, j int) bool { return h.cmp(h.runs[i][0], h.runs[j][0]) < 0 }
func (h *runHeap[T]) Swap(i, j int)      { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *runHeap[T]) Push(x any)         { h.runs = append(h.runs, x.([]T)) }
func (h *runHeap[T]) Pop() any {
	r := h.runs[len(h.runs)-1]
	h.runs = h.runs[:len(h.runs)-1]
	return r
}
