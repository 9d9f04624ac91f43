package dumptext

// rangeMap is Breakpad's RangeMap<uint64, int> as the dump reader uses it:
// ranges keyed by their last address; a new range overlapping a stored one is
// refused, or, with truncateLower (Linux and Android module lists), the lower
// of the two is shortened. The ranges live in a treap, so that a hostile list
// of a million entries in descending order still takes O(n log n).
type rangeMap struct {
	truncateLower bool
	root          *node
	seed          uint64 // the treap's priorities: xorshift, deterministic
}

type span struct {
	high, base uint64
	entry      int
}

type node struct {
	span
	prio        uint64
	left, right *node
}

// lowerBound is the range with the lowest high >= a, or nil.
func (m *rangeMap) lowerBound(a uint64) *node {
	var best *node
	for n := m.root; n != nil; {
		if n.high >= a {
			best, n = n, n.left
		} else {
			n = n.right
		}
	}
	return best
}

// split cuts t into the ranges whose high is below key and the others.
func split(t *node, key uint64) (lo, hi *node) {
	if t == nil {
		return nil, nil
	}
	if t.high < key {
		t.right, hi = split(t.right, key)
		return t, hi
	}
	lo, t.left = split(t.left, key)
	return lo, t
}

// merge joins two treaps, every range of a below every range of b.
func merge(a, b *node) *node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio > b.prio:
		a.right = merge(a.right, b)
		return a
	}
	b.left = merge(a, b.left)
	return b
}

func (m *rangeMap) insert(s span) {
	if m.seed == 0 {
		m.seed = 0x9e3779b97f4a7c15
	}
	m.seed ^= m.seed << 13
	m.seed ^= m.seed >> 7
	m.seed ^= m.seed << 17
	lo, hi := split(m.root, s.high)
	m.root = merge(merge(lo, &node{span: s, prio: m.seed}), hi)
}

// remove deletes the range whose high is key (it must exist).
func (m *rangeMap) remove(key uint64) {
	lo, hi := split(m.root, key)
	m.root = merge(lo, removeMin(hi))
}

func removeMin(t *node) *node {
	if t.left == nil {
		return t.right
	}
	t.left = removeMin(t.left)
	return t
}

// store is RangeMap::StoreRange (its recursion as a loop).
func (m *rangeMap) store(base, size uint64, entry int) bool {
	for {
		if size == 0 || base+(size-1) < base {
			return false
		}
		high := base + size - 1
		ib, ih := m.lowerBound(base), m.lowerBound(high)
		var other *node
		switch {
		case ib != ih:
			other = ib
		case ih != nil && ih.base <= high:
			other = ih
		default:
			m.insert(span{high, base, entry})
			return true
		}
		if !m.truncateLower {
			return false
		}
		o := other.span
		switch {
		case base < o.base:
			size = o.base - base
		case o.base < base:
			m.remove(o.high)
			m.insert(span{base - 1, o.base, o.entry})
		default:
			return false
		}
	}
}

// retrieve returns the entry of the range holding a.
func (m *rangeMap) retrieve(a uint64) (int, bool) {
	n := m.lowerBound(a)
	if n == nil || a < n.base {
		return 0, false
	}
	return n.entry, true
}
