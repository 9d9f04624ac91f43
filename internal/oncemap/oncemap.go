// Package oncemap runs one load per key, however many goroutines ask for
// it, and keeps the answer: the suppliers of symfile and symsrv load each
// module and each file at most once.
package oncemap

import "sync"

type entry[V any] struct {
	once  sync.Once
	value V
	err   error
}

// Map runs one load per key and keeps its answer. The zero value is ready
// to use; a Map must not be copied after first use.
type Map[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]*entry[V]
}

// Get returns the answer of the load for key: load's, when this is the
// first call for key (concurrent callers wait for it), else the kept one.
func (o *Map[K, V]) Get(key K, load func() (V, error)) (V, error) {
	o.mu.Lock()
	if o.m == nil {
		o.m = make(map[K]*entry[V])
	}
	e := o.m[key]
	if e == nil {
		e = &entry[V]{}
		o.m[key] = e
	}
	o.mu.Unlock()
	e.once.Do(func() { e.value, e.err = load() })
	return e.value, e.err
}
