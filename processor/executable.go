package processor

import (
	"slices"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// executableMap is the dump's memory map reduced to its executable
// mappings, sorted and merged: walker.Env.Executable, by which the walk
// tells code outside every module (JIT) from data. As crashinfo reads
// the map, the memory info list is preferred to Linux's maps stream when
// a dump holds both (rust-minidump's choice). Nil when it holds neither.
func executableMap(infos []minidump.MemoryInfo, maps []minidump.MapsRegion) func(uint64) bool {
	var r [][2]uint64
	const exec = minidump.PageExecute | minidump.PageExecuteRead | minidump.PageExecuteReadWrite | minidump.PageExecuteWriteCopy
	switch {
	case len(infos) > 0:
		for _, mi := range infos {
			if mi.Protect&exec != 0 && mi.BaseAddress+mi.RegionSize > mi.BaseAddress {
				r = append(r, [2]uint64{mi.BaseAddress, mi.BaseAddress + mi.RegionSize})
			}
		}
	case len(maps) > 0:
		for _, m := range maps {
			if m.Exec { // MapsRegions keeps only End > Start
				r = append(r, [2]uint64{m.Start, m.End})
			}
		}
	default:
		return nil
	}
	slices.SortFunc(r, func(a, b [2]uint64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	merged := r[:0]
	for _, x := range r {
		if n := len(merged); n > 0 && x[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], x[1])
			continue
		}
		merged = append(merged, x)
	}
	return func(addr uint64) bool {
		i, _ := slices.BinarySearchFunc(merged, addr, func(x [2]uint64, a uint64) int {
			if x[0] <= a {
				return -1
			}
			return 1
		})
		return i > 0 && addr < merged[i-1][1]
	}
}
