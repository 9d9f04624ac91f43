package processor

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// TestExecutableMap: the walk's map of executable memory, from the memory
// info list (preferred when a dump holds both, as crashinfo reads it) or
// Linux's maps stream (arm-throw's: the program's text r-xp, its heap
// rw-p), overlapping mappings merged; none without either stream.
func TestExecutableMap(t *testing.T) {
	maps := []minidump.MapsRegion{
		{Start: 0x10000, End: 0x7f000, Read: true, Exec: true},
		{Start: 0x84000, End: 0xb9000, Read: true, Write: true},
		{Start: 0xffff0000, End: 0xffff1000, Read: true, Exec: true},
		{Start: 0x3ffff000, End: 0x40000000, Read: true, Exec: true},
		{Start: 0x3fff0000, End: 0x3ffff800, Read: true, Exec: true}, // overlaps the one before
	}
	infos := []minidump.MemoryInfo{
		{BaseAddress: 0x84000, RegionSize: 0x1000, Protect: minidump.PageExecuteReadWrite},
		{BaseAddress: 0x10000, RegionSize: 0x1000, Protect: minidump.PageReadOnly},
	}
	if executableMap(nil, nil) != nil {
		t.Error("no map: want nil")
	}
	fromMaps, fromInfos := executableMap(nil, maps), executableMap(infos, maps)
	for _, c := range []struct {
		addr        uint64
		maps, infos bool
	}{
		{0x10000, true, false}, {0x7efff, true, false}, {0x7f000, false, false},
		{0x9cac0, false, false}, {0x84fff, false, true}, {0x85000, false, false},
		{0x3fff0000, true, false}, {0x3ffff900, true, false}, {0x40000000, false, false},
		{0xffff0fff, true, false}, {0xffff1000, false, false}, {0, false, false},
	} {
		if got := fromMaps(c.addr); got != c.maps {
			t.Errorf("maps: %#x executable %v, want %v", c.addr, got, c.maps)
		}
		if got := fromInfos(c.addr); got != c.infos {
			t.Errorf("memory info: %#x executable %v, want %v", c.addr, got, c.infos)
		}
	}
}
