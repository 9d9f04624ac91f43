package processor

import (
	"errors"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// symbolCache is the walker.SymbolSource over a supplier. Like Breakpad's
// resolver it remembers one answer per code file, so module entries of one
// image share their symbols. It is safe for concurrent use.
type symbolCache struct {
	sup symfile.Supplier
	mu  sync.Mutex
	by  map[string]*symEntry
}

type symEntry struct {
	once   sync.Once
	key    symfile.ModuleKey // the module the supplier was asked for
	file   *symfile.File
	status walker.SymbolStatus
}

func newSymbolCache(s symfile.Supplier) *symbolCache {
	return &symbolCache{sup: s, by: map[string]*symEntry{}}
}

func (c *symbolCache) entry(m *walker.Module) *symEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.by[m.CodeFile]
	if e == nil {
		e = &symEntry{}
		c.by[m.CodeFile] = e
	}
	return e
}

// Symbols implements walker.SymbolSource.
func (c *symbolCache) Symbols(m *walker.Module) (*symfile.File, walker.SymbolStatus) {
	e := c.entry(m)
	e.once.Do(func() {
		e.key = m.Key()
		f, err := c.sup.Symbols(e.key)
		var ce *symfile.CorruptError
		switch {
		case err == nil && f != nil:
			e.file, e.status = f, walker.SymbolsLoaded
		case errors.As(err, &ce):
			e.file, e.status = f, walker.SymbolsCorrupt
		default:
			e.status = walker.SymbolsMissing
		}
	})
	return e.file, e.status
}

// status returns what is known about m's symbols without asking the supplier.
func (c *symbolCache) status(m *walker.Module) (walker.SymbolStatus, string) {
	c.mu.Lock()
	e := c.by[m.CodeFile]
	c.mu.Unlock()
	if e == nil {
		return walker.SymbolsNotTried, ""
	}
	e.once.Do(func() {}) // wait for a load in progress
	if e.file != nil {
		return e.status, e.file.Name()
	}
	return e.status, ""
}

// loaded returns the file the supplier gave for m itself (corrupt files
// included), or nil: the files Breakpad's resolver holds after the walk.
func (c *symbolCache) loaded(m *walker.Module) *symfile.File {
	c.mu.Lock()
	e := c.by[m.CodeFile]
	c.mu.Unlock()
	if e == nil {
		return nil
	}
	e.once.Do(func() {}) // wait for a load in progress
	if e.key != m.Key() {
		return nil
	}
	return e.file
}
