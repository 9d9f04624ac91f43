package minidump_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// 1000 memory descriptors over one range: the first few overlaps are
// reported each, naming the offset of the descriptor (not of the region's
// bytes), and the rest are counted in one error.
func TestOverlappingMemoryReportedOnce(t *testing.T) {
	const n = 1000
	data, err := hostile.OverlappingMemory(n)
	if err != nil {
		t.Fatal(err)
	}
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	mem, err := f.Memory()
	if err == nil {
		t.Fatal("no error for overlapping regions")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines of errors, want 6:\n%s", len(lines), err)
	}
	// The memory list: 4-byte count, then 16-byte descriptors. The kept
	// region is the first (the sort is stable); the second is the first refused.
	streamOff := int64(0)
	for _, s := range f.Streams() {
		if s.Type == minidump.StreamMemoryList {
			streamOff = s.Off
		}
	}
	if want := fmt.Sprintf("MD_MEMORY_LIST_STREAM at offset %#x:", streamOff+4+16); !strings.Contains(lines[0], want) {
		t.Errorf("first error %q lacks %q", lines[0], want)
	}
	if want := "994 more overlapping memory regions ignored"; !strings.Contains(lines[5], want) {
		t.Errorf("summary %q lacks %q", lines[5], want)
	}
	if _, ok := mem.Region(0x10000000); !ok {
		t.Error("the first region is not kept")
	}
}
