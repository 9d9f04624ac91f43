package symfile

import (
	"errors"
	"fmt"
	"os"
)

// ChainSupplier asks its suppliers in order, typically local symbol roots
// first and then a symbol server, and returns the first answer that is not
// "not found". A supplier that failed otherwise (a symbol server's
// download error) does not stop the search; its error is returned only
// when no later supplier has the symbols.
type ChainSupplier []Supplier

// Symbols implements Supplier.
func (c ChainSupplier) Symbols(m ModuleKey) (*File, error) {
	var failures []error
	for _, s := range c {
		f, err := s.Symbols(m)
		if err == nil || errors.As(err, new(*CorruptError)) {
			return f, err
		}
		if !errors.Is(err, ErrNotFound) {
			failures = append(failures, err)
		}
	}
	if len(failures) > 0 {
		return nil, errors.Join(failures...)
	}
	return nil, fmt.Errorf("%w: %s %s", ErrNotFound, BaseName(m.DebugFile), m.DebugID)
}

// Prefetcher is a Supplier that can look up many modules at once, as a
// symbol server client does with its requests in parallel (package
// symsrv). A later Symbols call for one of the modules returns the answer
// the prefetch found.
type Prefetcher interface {
	Supplier
	Prefetch(mods []ModuleKey)
}

// Prefetch prefetches, from the chain's first Prefetcher, the modules that
// no earlier supplier in the chain has (a local file that exists stops the
// search, as it would stop Symbols). Other suppliers are not asked.
func (c ChainSupplier) Prefetch(mods []ModuleKey) {
	for i, s := range c {
		p, ok := s.(Prefetcher)
		if !ok {
			continue
		}
		var need []ModuleKey
		for _, m := range mods {
			if !localHas(c[:i], m) {
				need = append(need, m)
			}
		}
		p.Prefetch(need)
		return // later servers are asked by Symbols, for what this one lacks
	}
}

// localHas reports whether one of the directory suppliers has a file for
// m, by looking for it only (nothing is parsed).
func localHas(sups []Supplier, m ModuleKey) bool {
	for _, s := range sups {
		d, ok := s.(*DirSupplier)
		if !ok {
			return true // an unknown supplier may have it: do not prefetch
		}
		for _, root := range d.roots {
			st, err := os.Stat(root)
			switch {
			case err != nil:
			case !st.IsDir():
				if moduleLineMatches(root, m, d.decompressBudget()) {
					return true
				}
			default:
				for _, p := range candidatePaths(root, m) {
					if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
						return true
					}
				}
			}
		}
	}
	return false
}
