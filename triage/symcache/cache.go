package symcache

import (
	"container/list"
	"context"
	"errors"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// ContextLoader finds and loads the symbol file of a module, without
// caching it; ctx, the context of the session that asked first, cancels
// its work (downloads). It follows symfile.Supplier's contract for its
// results.
type ContextLoader func(ctx context.Context, m symfile.ModuleKey) (*symfile.File, error)

// Cache is a byte-bounded LRU cache of symbol files. It is safe for
// concurrent use.
type Cache struct {
	load     ContextLoader
	maxBytes int64

	mu      sync.Mutex
	entries map[symfile.ModuleKey]*entry
	lru     *list.List // of *entry with a file, unpinned, least recent at the front
	bytes   int64      // sizes of the cached files
	stats   Stats
}

// Stats counts a cache's work.
type Stats struct {
	Loads     int   // loader calls
	Hits      int   // answers from the cache, negative ones included
	Evictions int   // files closed to stay within the bound
	Bytes     int64 // bytes of the files held now
	Files     int   // files held now
}

type entry struct {
	key   symfile.ModuleKey
	ready chan struct{} // closed when file and err are set
	file  *symfile.File
	err   error
	size  int64
	pins  int
	elem  *list.Element // in lru when unpinned and holding a file
	stale bool          // dropped by Discard: closed when unpinned
	// cancelled: the load stopped because its session's context was
	// done: not the module's answer, so not kept for the run.
	cancelled bool
}

// NewContext returns a cache over load holding at most maxBytes of symbol
// files that no dump in progress uses (see the package doc); maxBytes <= 0
// keeps no unpinned file. A session's context cancels the loads it asked
// for first (a batch dump past its --timeout stops its downloads). A load so cancelled
// that found no file is not kept: the next session to ask loads again,
// and one that was waiting for it loads itself.
func NewContext(load ContextLoader, maxBytes int64) *Cache {
	return &Cache{load: load, maxBytes: maxBytes, entries: map[symfile.ModuleKey]*entry{}, lru: list.New()}
}

// Stats returns the cache's counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Bytes = c.bytes
	for _, e := range c.entries {
		if e.file != nil {
			s.Files++
		}
	}
	return s
}

// Session is the supplier of one dump's processing. Close it when the dump
// is done: its files may then be evicted.
type Session struct {
	c      *Cache
	ctx    context.Context // cancels the loads this session starts
	mu     sync.Mutex
	pinned map[symfile.ModuleKey]*entry
	closed bool
}

// Session starts a session.
func (c *Cache) Session() *Session { return c.SessionContext(context.Background()) }

// SessionContext starts a session whose loads ctx cancels.
func (c *Cache) SessionContext(ctx context.Context) *Session {
	return &Session{c: c, ctx: ctx, pinned: map[symfile.ModuleKey]*entry{}}
}

// errClosed is returned by a closed session: a walk must not outlive its
// session (close a timed-out dump's session only when its walk returns).
var errClosed = errors.New("symcache: session closed")

// Symbols implements symfile.Supplier.
func (s *Session) Symbols(m symfile.ModuleKey) (*symfile.File, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errClosed
	}
	if e := s.pinned[m]; e != nil {
		s.mu.Unlock()
		return e.file, e.err
	}
	s.mu.Unlock()
	e := s.c.acquire(s.ctx, m)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.pinned[m] != nil {
		s.c.release(e)
		if s.closed {
			return nil, errClosed
		}
		e = s.pinned[m]
	} else {
		s.pinned[m] = e
	}
	return e.file, e.err
}

// Close unpins the session's files. Calling it again does nothing.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	s.c.releaseAll(s.pinned)
	s.pinned = nil
}

// Discard drops the session's files from the cache, to be loaded again by
// the next dump that needs them; each is closed when no session uses it.
// A dump whose processing met a symbol file changed on disk (truncated
// while mapped) discards its files so that later dumps do not read the
// stale mapping.
func (s *Session) Discard() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	for m, e := range s.pinned {
		e.stale = true
		if s.c.entries[m] == e {
			delete(s.c.entries, m)
		}
	}
}

// acquire returns m's entry, loaded and pinned once. A load another
// session's context cancelled is made again with ctx.
func (c *Cache) acquire(ctx context.Context, m symfile.ModuleKey) *entry {
	for {
		c.mu.Lock()
		e := c.entries[m]
		if e != nil {
			c.stats.Hits++
			e.pins++
			if e.elem != nil {
				c.lru.Remove(e.elem)
				e.elem = nil
			}
			c.mu.Unlock()
			<-e.ready
			if !e.cancelled || ctx.Err() != nil {
				return e
			}
			c.release(e)
			continue
		}
		e = &entry{key: m, ready: make(chan struct{}), pins: 1}
		c.entries[m] = e
		c.stats.Loads++
		c.mu.Unlock()

		f, err := c.safeLoad(ctx, m)
		c.mu.Lock()
		e.file, e.err = f, err
		if f != nil {
			e.size = fileBytes(f)
			c.bytes += e.size
		} else if ctx.Err() != nil {
			e.cancelled = true
			if c.entries[m] == e {
				delete(c.entries, m)
			}
		}
		close(e.ready)
		c.mu.Unlock()
		return e
	}
}

// fileBytes is the memory a file holds: its data and its index, with the
// functions parsed so far.
func fileBytes(f *symfile.File) int64 { return int64(f.Size()) + f.HeapBytes() }

// safeLoad calls the loader, turning a panic into an error so that waiters
// are not left blocked.
func (c *Cache) safeLoad(ctx context.Context, m symfile.ModuleKey) (f *symfile.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, &symfile.CorruptError{File: m.DebugFile, Err: errors.New("symbol loader panicked")}
		}
	}()
	return c.load(ctx, m)
}

// release unpins e and evicts unpinned files beyond the bound.
func (c *Cache) release(e *entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unpin(e)
	c.evict()
}

// releaseAll unpins the entries of a session under one lock of the
// cache: a batch worker ends a session per dump, and with -j 2 each lock
// of c.mu is a cache line the two workers pass back and forth (issue 29).
func (c *Cache) releaseAll(pinned map[symfile.ModuleKey]*entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range pinned {
		c.unpin(e)
	}
	c.evict()
}

// unpin is release's work on e, under c.mu, but the eviction.
func (c *Cache) unpin(e *entry) {
	e.pins--
	if e.pins == 0 && e.stale {
		if e.file != nil {
			c.bytes -= e.size
			e.file.Close()
		}
		return
	}
	if e.pins == 0 && e.file != nil {
		// Lookups made while it was pinned parsed more of the file.
		size := fileBytes(e.file)
		c.bytes += size - e.size
		e.size = size
		e.elem = c.lru.PushBack(e)
	}
}

// evict closes the least recently used unpinned files while the cache
// holds more than its bound, under c.mu. A negative answer (no file)
// stays for the whole run: it costs a map entry, and asking again would
// repeat the search and the downloads.
func (c *Cache) evict() {
	for c.bytes > c.maxBytes {
		front := c.lru.Front()
		if front == nil {
			break // the rest is pinned
		}
		old := front.Value.(*entry)
		c.lru.Remove(front)
		old.elem = nil
		delete(c.entries, old.key)
		c.bytes -= old.size
		c.stats.Evictions++
		old.file.Close()
	}
}
