package rangeset

import "github.com/google/btree"

// Entry is one range [Base, High] with its value. High is the key: it must
// not change while the entry is in a Set (remove, change, insert). Base and
// Value may be changed in place.
type Entry[V any] struct {
	Base, High uint64
	Value      V
}

// Set holds entries ordered by High. The zero value is not usable; call New.
type Set[V any] struct {
	t *btree.BTreeG[*Entry[V]]
}

// New returns an empty Set.
func New[V any]() *Set[V] {
	return &Set[V]{t: btree.NewG(32, func(a, b *Entry[V]) bool { return a.High < b.High })}
}

// Len is the number of entries.
func (s *Set[V]) Len() int { return s.t.Len() }

// Insert adds e, replacing an entry with the same High.
func (s *Set[V]) Insert(e *Entry[V]) { s.t.ReplaceOrInsert(e) }

// Remove removes the entry with e's High.
func (s *Set[V]) Remove(e *Entry[V]) { s.t.Delete(e) }

// Ceil returns the entry with the lowest High >= addr, or nil.
func (s *Set[V]) Ceil(addr uint64) *Entry[V] {
	var found *Entry[V]
	s.t.AscendGreaterOrEqual(&Entry[V]{High: addr}, func(e *Entry[V]) bool {
		found = e
		return false
	})
	return found
}

// Floor returns the entry with the highest High <= addr, or nil.
func (s *Set[V]) Floor(addr uint64) *Entry[V] {
	var found *Entry[V]
	s.t.DescendLessOrEqual(&Entry[V]{High: addr}, func(e *Entry[V]) bool {
		found = e
		return false
	})
	return found
}

// Entries returns the entries in ascending order.
func (s *Set[V]) Entries() []*Entry[V] {
	out := make([]*Entry[V], 0, s.t.Len())
	s.t.Ascend(func(e *Entry[V]) bool {
		out = append(out, e)
		return true
	})
	return out
}
