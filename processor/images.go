package processor

import "github.com/minidump-stackwalk/minidump-stackwalk/walker"

// setImageBases makes module entries that are parts of one image (same code
// file and debug identifier, e.g. an ELF executable mapped as separate
// segments) look up symbols relative to the image's lowest entry, which is
// where the symbol file's addresses start.
func setImageBases(mods []*walker.Module) {
	for _, m := range mods {
		if m.DebugID == "" || m.CodeFile == "" {
			continue
		}
		for _, o := range mods {
			if o != m && o.CodeFile == m.CodeFile && o.DebugID == m.DebugID && o.Base < m.SymbolBase {
				m.SymbolBase = o.Base
			}
		}
	}
}
