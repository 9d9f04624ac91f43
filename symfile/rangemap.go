package symfile

import (
	"cmp"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// span is an address range [base, high] (high inclusive, as Breakpad's maps
// key their ranges) with the index of the record it came from.
type span struct {
	base, high uint64
	idx        int
}

// ranger is a record with an address range [lo, hi] (hi inclusive) and
// its position in the file (ord).
type ranger interface {
	lo() uint64
	hi() uint64
	ord() uint64
}

func (s span) lo() uint64  { return s.base }
func (s span) hi() uint64  { return s.high }
func (s span) ord() uint64 { return uint64(s.idx) }

// exclusiveFirstWins keeps the ranges Breakpad's RangeMap (kExclusiveRanges)
// keeps when they are stored in file order: a range overlapping one already
// stored is dropped. The slice is reused; the result is sorted by lo.
//
// Only ranges that overlap something depend on the order: the ranges are
// sorted by address, split into clusters of transitively overlapping
// ranges, and each cluster of more than one range is replayed in file order.
func exclusiveFirstWins[T ranger](in []T) []T {
	sortByAddr(in, byAddr[T])
	w := 0
	for i := 0; i < len(in); {
		j, maxHi := i+1, in[i].hi()
		for j < len(in) && in[j].lo() <= maxHi {
			maxHi = max(maxHi, in[j].hi())
			j++
		}
		switch n := j - i; {
		case n == 1:
			in[w] = in[i]
			w++
		case n == 2: // two overlapping ranges: the earlier in the file wins
			if in[i+1].ord() < in[i].ord() {
				in[w] = in[i+1]
			} else {
				in[w] = in[i]
			}
			w++
		case n <= smallCluster:
			w += copy(in[w:], firstWinsSmall(in[i:j]))
		default:
			cluster := slices.Clone(in[i:j])
			slices.SortFunc(cluster, func(a, b T) int { return cmp.Compare(a.ord(), b.ord()) })
			w += copy(in[w:], exclusiveInFileOrder(cluster))
		}
		i = j
	}
	return in[:w]
}

const smallCluster = 16

// firstWinsSmall resolves a small cluster (sorted by address) without
// allocating: each range is kept unless it overlaps a range that comes
// earlier in the file and is itself kept. The result is sorted by address.
func firstWinsSmall[T ranger](c []T) []T {
	var byOrd [smallCluster]int
	n := len(c)
	for k := range n {
		byOrd[k] = k
	}
	for a := 1; a < n; a++ { // insertion sort by file order
		for b := a; b > 0 && c[byOrd[b]].ord() < c[byOrd[b-1]].ord(); b-- {
			byOrd[b], byOrd[b-1] = byOrd[b-1], byOrd[b]
		}
	}
	var kept [smallCluster]bool
	for a := range n {
		x := c[byOrd[a]]
		ok := true
		for b := range a {
			y := c[byOrd[b]]
			if kept[byOrd[b]] && x.lo() <= y.hi() && y.lo() <= x.hi() {
				ok = false
				break
			}
		}
		kept[byOrd[a]] = ok
	}
	w := 0
	for k := range n { // c is sorted by address, so compaction keeps the order
		if kept[k] {
			c[w] = c[k]
			w++
		}
	}
	return c[:w]
}

// maxRuns bounds the sorted runs sortByAddr merges; beyond that it sorts.
const maxRuns = 512

// parallelMerge is the size (in entries) from which a merge of two runs is
// worth splitting over goroutines.
const parallelMerge = 1 << 15

// sortByAddr sorts in by cmp, which must be a total order (every
// comparator here ends with the file offset, which no two entries share),
// so the result does not depend on the algorithm. The index pass sorts
// each chunk's records, so the concatenation is a few hundred sorted runs at
// most (and one run for a sorted file); they are merged pairwise, the pairs
// of a level and the halves of a large pair on separate goroutines.
// Anything else is sorted outright.
func sortByAddr[T any](in []T, cmp func(a, b T) int) {
	var starts []int
	for k := 1; k < len(in); k++ {
		if cmp(in[k-1], in[k]) > 0 {
			if starts = append(starts, k); len(starts) > maxRuns {
				slices.SortFunc(in, cmp)
				return
			}
		}
	}
	if len(starts) == 0 {
		return
	}
	bounds := append(append([]int{0}, starts...), len(in))
	buf := make([]T, len(in))
	src, dst := in, buf
	depth := bits.Len(uint(runtime.GOMAXPROCS(0)))
	for len(bounds) > 2 {
		var next []int
		var wg sync.WaitGroup
		for k := 0; k+1 < len(bounds); k += 2 {
			lo := bounds[k]
			next = append(next, lo)
			if k+2 >= len(bounds) { // odd run out: copy through
				copy(dst[lo:], src[lo:])
				continue
			}
			mid, hi := bounds[k+1], bounds[k+2]
			if hi-lo < parallelMerge {
				mergeRuns(dst[lo:hi], src[lo:mid], src[mid:hi], cmp)
				continue
			}
			d := depth
			if len(bounds) > 3 { // other pairs share the level's parallelism
				d = 0
			}
			wg.Go(func() { mergeRunsParallel(dst[lo:hi], src[lo:mid], src[mid:hi], cmp, d) })
		}
		wg.Wait()
		bounds = append(next, len(in))
		src, dst = dst, src
	}
	if &src[0] != &in[0] {
		copy(in, src)
	}
}

// mergeRunsParallel is mergeRuns split into 2^depth parts: a's middle
// entry and its place in b cut both runs in two, and the halves are
// merged at once.
func mergeRunsParallel[T any](dst, a, b []T, cmp func(a, b T) int, depth int) {
	if depth <= 0 || len(a)+len(b) < parallelMerge || len(a) == 0 {
		mergeRuns(dst, a, b, cmp)
		return
	}
	i := len(a) / 2
	j := sort.Search(len(b), func(k int) bool { return cmp(b[k], a[i]) > 0 })
	var wg sync.WaitGroup
	wg.Go(func() { mergeRunsParallel(dst[:i+j], a[:i], b[:j], cmp, depth-1) })
	mergeRunsParallel(dst[i+j:], a[i:], b[j:], cmp, depth-1)
	wg.Wait()
}

// mergeRuns merges the sorted runs a and b into dst. The runs of a symbol
// file's chunks seldom interleave much (rounds of a file, sections of a
// module), so the part of a before b's first entry and the part of b
// after a's last are copied whole, and only the overlap is compared.
func mergeRuns[T any](dst, a, b []T, cmp func(a, b T) int) {
	if len(a) > 0 && len(b) > 0 {
		i := sort.Search(len(a), func(k int) bool { return cmp(a[k], b[0]) > 0 })
		dst = dst[copy(dst, a[:i]):]
		a = a[i:]
	}
	if len(a) > 0 && len(b) > 0 {
		j := sort.Search(len(b), func(k int) bool { return cmp(b[k], a[len(a)-1]) > 0 })
		copy(dst[len(dst)-(len(b)-j):], b[j:])
		dst = dst[:len(dst)-(len(b)-j)]
		b = b[:j]
	}
	x, y, o := 0, 0, 0
	for x < len(a) && y < len(b) {
		if cmp(b[y], a[x]) < 0 {
			dst[o] = b[y]
			y++
		} else {
			dst[o] = a[x]
			x++
		}
		o++
	}
	o += copy(dst[o:], a[x:])
	copy(dst[o:], b[y:])
}

// exclusiveInFileOrder replays the insertion of ranges given in file order.
func exclusiveInFileOrder[T ranger](in []T) []T {
	// Ranges that arrive in address order (nearly all of them: dump_syms
	// sorts its output) are compacted in place into in[:w]. The others, if
	// accepted, go to sorted runs whose sizes form a binary counter, so that
	// each overlap test costs O(log² n) even for a file in random order.
	w := 0
	var runs [][]T
	overlapsIn := func(r []T, x T) bool {
		i := sort.Search(len(r), func(k int) bool { return r[k].hi() >= x.lo() })
		return i < len(r) && r[i].lo() <= x.hi()
	}
	for _, x := range in {
		inOrder := w == 0 || x.lo() > in[w-1].hi()
		if !inOrder && overlapsIn(in[:w], x) {
			continue
		}
		overlap := false
		for _, r := range runs {
			if overlapsIn(r, x) {
				overlap = true
				break
			}
		}
		if overlap {
			continue
		}
		if inOrder {
			in[w] = x
			w++
			continue
		}
		run := []T{x}
		for len(runs) > 0 && len(runs[len(runs)-1]) <= len(run) {
			run = mergeSorted(runs[len(runs)-1], run)
			runs = runs[:len(runs)-1]
		}
		runs = append(runs, run)
	}
	out := in[:w]
	if len(runs) > 0 {
		out = append([]T(nil), out...)
		for _, r := range runs {
			out = mergeSorted(out, r)
		}
	}
	return out
}

func mergeSorted[T ranger](a, b []T) []T {
	out := make([]T, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i].lo() < b[j].lo() {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// findRange returns the index of the range containing addr in sorted,
// disjoint ranges, or -1; near is the index of the last range starting at
// or below addr (Breakpad's RetrieveNearestRange), or -1.
func findRange[T ranger](rs []T, addr uint64) (at, near int) {
	i := sort.Search(len(rs), func(k int) bool { return rs[k].lo() > addr }) - 1
	if i < 0 {
		return -1, -1
	}
	if addr <= rs[i].hi() {
		return i, i
	}
	return -1, i
}

// containedMap is Breakpad's ContainedRangeMap: ranges may nest but not
// partially overlap; a lookup returns the chain of ranges containing an
// address, innermost first.
type containedMap struct {
	allowEqual bool
	root       cmNode
}

type cmNode struct {
	base, high uint64
	entry      int
	children   []*cmNode // sorted by high
}

// maxNesting bounds how deep ranges nest (inline depth, nested STACK WIN
// records). Real files stay far below it; it keeps a hostile file from
// making each store cost as much as all the ones before it.
const maxNesting = 256

func (m *containedMap) store(base, size uint64, entry int) bool {
	if size == 0 || base+(size-1) < base {
		return false
	}
	return m.root.store(base, base+size-1, entry, m.allowEqual, 0)
}

func (n *cmNode) store(base, high uint64, entry int, allowEqual bool, depth int) bool {
	if depth > maxNesting {
		return false
	}
	c := n.children
	ib := sort.Search(len(c), func(k int) bool { return c[k].high >= base })
	ih := sort.Search(len(c), func(k int) bool { return c[k].high >= high })
	if ib == ih && ib < len(c) && base >= c[ib].base {
		if !allowEqual && c[ib].base == base && c[ib].high == high {
			return false
		}
		return c[ib].store(base, high, entry, allowEqual, depth+1)
	}
	containsHigh := ih < len(c) && high >= c[ih].base
	if (ib < len(c) && base > c[ib].base) || (containsHigh && high < c[ih].high) {
		return false
	}
	if containsHigh {
		ih++
	}
	child := &cmNode{base: base, high: high, entry: entry}
	if ib == ih {
		n.children = slices.Insert(c, ib, child)
		return true
	}
	child.children = append([]*cmNode(nil), c[ib:ih]...)
	out := make([]*cmNode, 0, len(c)-(ih-ib)+1)
	out = append(out, c[:ib]...)
	out = append(out, child)
	n.children = append(out, c[ih:]...)
	return true
}

// lookup appends the entries of the ranges containing addr, innermost first.
func (m *containedMap) lookup(addr uint64, out []int) []int {
	return m.root.lookup(addr, out)
}

func (n *cmNode) lookup(addr uint64, out []int) []int {
	c := n.children
	i := sort.Search(len(c), func(k int) bool { return c[k].high >= addr })
	if i == len(c) || addr < c[i].base {
		return out
	}
	out = c[i].lookup(addr, out)
	return append(out, c[i].entry)
}
