package processor

// Demangling of function names. Kept in its own file:
// the walk never looks at names, so demangling after the walk gives the same
// frames as demangling during symbolization.

import "github.com/minidump-stackwalk/minidump-stackwalk/internal/demangle"

// DemangleNames replaces every mangled function name of every frame
// (Itanium C++, Rust legacy and v0, with Mach-O's extra leading underscore)
// by its demangled form. Names that are not mangled, or fail to demangle,
// are kept as they are; Symbolize demangles from then on too. The command
// line calls it unless --no-demangle.
func (s *ProcessState) DemangleNames() {
	s.demangled = true
	for _, t := range s.Threads {
		if t == nil {
			continue
		}
		for _, f := range t.Frames {
			if f != nil && f.Function != "" {
				f.Function = demangle.Name(f.Function)
			}
		}
	}
}
