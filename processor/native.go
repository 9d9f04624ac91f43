package processor

import (
	"errors"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// NativeSupplier gives modules' own executable files (elfsupplier's
// Supplier, for --use-local-debuginfo): their unwind tables, prologues
// and code, for what the symbol files lack (walker.Env.Native). Native
// returns nil when the module's file is not at hand. It must be safe for
// concurrent use.
type NativeSupplier interface {
	Native(m symfile.ModuleKey) NativeModule
}

// nativeCache is the walker.NativeSource over a NativeSupplier: one answer
// per code file, as symbolCache, so module entries of one image share it.
type nativeCache struct {
	sup NativeSupplier
	mu  sync.Mutex
	by  map[string]*nativeEntry
}

type nativeEntry struct {
	once sync.Once
	mod  walker.NativeModule
}

func newNativeCache(s NativeSupplier) *nativeCache {
	return &nativeCache{sup: s, by: map[string]*nativeEntry{}}
}

// Native implements walker.NativeSource.
func (c *nativeCache) Native(m *walker.Module) walker.NativeModule {
	c.mu.Lock()
	e := c.by[m.CodeFile]
	if e == nil {
		e = &nativeEntry{}
		c.by[m.CodeFile] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.mod = c.sup.Native(m.Key()) })
	return e.mod
}

var errNoCode = errors.New("processor: no code at the address")

// codeMemory is the walkers' code (walker.Env.Code): the dump's memory,
// else the executable bytes of the module's own file.
type codeMemory struct {
	dump    walker.Memory // nil when the dump holds no memory list
	modules *walker.ModuleMap
	native  walker.NativeSource
}

func (c *codeMemory) ReadMemory(addr uint64, p []byte) error {
	if c.dump != nil && c.dump.ReadMemory(addr, p) == nil {
		return nil
	}
	m := c.modules.At(addr)
	if m == nil || addr < m.SymbolBase {
		return errNoCode
	}
	if nm := c.native.Native(m); nm != nil && nm.ReadCode(addr-m.SymbolBase, p) {
		return nil
	}
	return errNoCode
}
