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
	// One sort instead of a map of groups: a microdump may list 800k
	// modules, each its own group. Stable, so modules of one image at the
	// same base keep the dump's order.
	var images []*walker.Module
	for _, m := range mods {
		if m.DebugID != "" && m.CodeFile != "" && m.Size != 0 {
			images = append(images, m)
		}
	}
	sort.SliceStable(images, func(i, j int) bool {
		a, b := images[i], images[j]
		if a.CodeFile != b.CodeFile {
			return a.CodeFile < b.CodeFile
		}
		if a.DebugID != b.DebugID {
			return a.DebugID < b.DebugID
		}
		return a.Base < b.Base
	})
	for start := 0; start < len(images); {
		end := start + 1
		for end < len(images) && images[end].CodeFile == images[start].CodeFile &&
			images[end].DebugID == images[start].DebugID {
			end++
		}
		joinSegments(images[start:end])
		start = end
	}
}

// joinSegments gives each module of one image, in address order, the base
// of the first segment of its load.
func joinSegments(g []*walker.Module) {
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
