package processor

import (
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// maxSegmentGap is the largest gap between two mappings of one image that
// still counts as the same load (ELF segments are aligned to at most 2 MiB).
const maxSegmentGap = 2 << 20

// setImageBases makes module entries that are segments of one loaded image
// look up symbols relative to the image's first segment, where the symbol
// file's addresses start. Entries belong to one image when they share code
// file and debug identifier and follow each other with gaps no larger than
// segment alignment (so a distant copy of the same file keeps its own base).
// Breakpad instead uses each entry's own base, which misnames node's frames:
// node maps as 0x400000 (headers, rodata), 0xb72000 (text), 0x2600000, and
// its .sym addresses are relative to 0x400000.
func setImageBases(mods []*walker.Module) {
	groups := map[[2]string][]*walker.Module{}
	for _, m := range mods {
		if m.DebugID == "" || m.CodeFile == "" || m.Size == 0 {
			continue
		}
		k := [2]string{m.CodeFile, m.DebugID}
		groups[k] = append(groups[k], m)
	}
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		sort.SliceStable(g, func(i, j int) bool { return g[i].Base < g[j].Base })
		base, end := g[0].Base, g[0].Base+g[0].Size
		for _, m := range g[1:] {
			if m.Base >= end && m.Base-end <= maxSegmentGap {
				m.SymbolBase = base
			} else {
				base = m.Base
			}
			end = max(end, m.Base+m.Size)
		}
	}
}
