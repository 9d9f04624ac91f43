package elfsym

import (
	"debug/elf"
	"fmt"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/demangle"
)

// The symbol table tests read MiniDebugInfo's symbols through (against nm,
// TestTable): the product writes them as PUBLIC records (dumpsyms).

const maxSymbols = 1 << 22

// Symbol is a function symbol.
type Symbol struct {
	Addr, Size uint64
	Name       string // demangled
}

// Table is the function symbols of an ELF file, sorted by address.
type Table struct {
	syms []Symbol
}

// NewTable reads the function symbols of the ELF files given (a binary
// and its debug file, in any order): .symtab, .dynsym and the .symtab of
// each one's MiniDebugInfo. Of several symbols at one address, the first
// read with a size wins.
func NewTable(files ...*elf.File) (*Table, error) {
	var all []Symbol
	add := func(syms []elf.Symbol) error {
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) != elf.STT_FUNC && elf.ST_TYPE(s.Info) != elf.STT_GNU_IFUNC {
				continue
			}
			if s.Section == elf.SHN_UNDEF || s.Value == 0 {
				continue
			}
			if len(all) >= maxSymbols {
				return fmt.Errorf("elfsym: more than %d symbols", maxSymbols)
			}
			all = append(all, Symbol{Addr: s.Value, Size: s.Size, Name: s.Name})
		}
		return nil
	}
	for _, f := range files {
		if syms, err := f.Symbols(); err == nil {
			if err := add(syms); err != nil {
				return nil, err
			}
		}
		if syms, err := f.DynamicSymbols(); err == nil {
			if err := add(syms); err != nil {
				return nil, err
			}
		}
		mini, err := MiniDebugInfo(f)
		if err != nil {
			return nil, err
		}
		if mini != nil {
			if syms, err := mini.Symbols(); err == nil {
				if err := add(syms); err != nil {
					return nil, err
				}
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Addr < all[j].Addr })
	t := &Table{}
	for _, s := range all {
		if n := len(t.syms); n > 0 && t.syms[n-1].Addr == s.Addr {
			if t.syms[n-1].Size == 0 && s.Size != 0 {
				t.syms[n-1] = s
			}
			continue
		}
		t.syms = append(t.syms, s)
	}
	for i := range t.syms {
		t.syms[i].Name = demangle.Name(t.syms[i].Name)
	}
	return t, nil
}

// Len returns the number of symbols.
func (t *Table) Len() int { return len(t.syms) }

// Lookup returns the function covering addr: the symbol at or below it
// whose size covers it, or, for a symbol of size 0, the nearest one below
// addr when no other symbol lies between.
func (t *Table) Lookup(addr uint64) (Symbol, bool) {
	i := sort.Search(len(t.syms), func(i int) bool { return t.syms[i].Addr > addr }) - 1
	if i < 0 {
		return Symbol{}, false
	}
	s := t.syms[i]
	if s.Size != 0 && addr >= s.Addr+s.Size {
		return Symbol{}, false
	}
	return s, true
}
