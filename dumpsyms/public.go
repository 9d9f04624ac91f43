package dumpsyms

import (
	"debug/elf"
	"sort"
	"strings"

	"github.com/ianlancetaylor/demangle"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/dwarfsyms"
)

// public is a PUBLIC record: a function symbol's address and name.
type public struct {
	addr uint64
	name string
	// multiple: other symbols share the address (dump_syms -m writes
	// "PUBLIC m").
	multiple bool
}

// publics reads the function symbols of .symtab, or of .dynsym when there is
// no .symtab, as Breakpad's ELFSymbolsToModule: defined STT_FUNC symbols
// inside a PT_LOAD segment, names demangled as __cxa_demangle would, the
// first symbol at an address winning. The result is sorted by address.
func publics(f *elf.File, li loadInfo) []public {
	syms, err := f.Symbols()
	if err != nil || len(syms) == 0 {
		syms, err = f.DynamicSymbols()
		if err != nil {
			return nil
		}
	}
	seen := map[uint64]int{}
	var out []public
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Section == elf.SHN_UNDEF {
			continue
		}
		if !li.contains(s.Value) {
			continue
		}
		if i, ok := seen[s.Value]; ok {
			out[i].multiple = true
			continue
		}
		seen[s.Value] = len(out)
		out = append(out, public{addr: s.Value, name: demangleName(s.Name)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].addr < out[j].addr })
	return out
}

// demangleName demangles a symbol name as Google's dump_syms does with
// __cxa_demangle: an Itanium C++ name (_Z...), or else, since
// __cxa_demangle also accepts a lone type, a name that is exactly one
// mangled type ("u8_casecmp" is the vendor type "_casecmp"). Anything else
// is kept as it is.
func demangleName(name string) string {
	if strings.HasPrefix(name, "_Z") {
		if d, err := dwarfsyms.Demangle(name); err == nil {
			return d
		}
		return name
	}
	// Parse the name as the parameter list of a function "f": one
	// parameter means the whole name is one type.
	a, err := demangle.ToAST("_Z1f" + name)
	if err != nil {
		return name
	}
	typed, ok := a.(*demangle.Typed)
	if !ok {
		return name
	}
	fn, ok := typed.Type.(*demangle.FunctionType)
	if !ok || len(fn.Args) != 1 || fn.Return != nil {
		return name
	}
	return demangle.ASTToString(fn.Args[0])
}

// mergePublics adds to a the symbols of b at addresses a has none at; with
// mark, a's symbols at b's addresses become multiple.
func mergePublics(a, b []public, mark bool) []public {
	seen := make(map[uint64]int, len(a))
	for i, p := range a {
		seen[p.addr] = i
	}
	for _, p := range b {
		if i, ok := seen[p.addr]; ok {
			a[i].multiple = a[i].multiple || mark
			continue
		}
		seen[p.addr] = len(a)
		a = append(a, p)
	}
	sort.SliceStable(a, func(i, j int) bool { return a[i].addr < a[j].addr })
	return a
}
