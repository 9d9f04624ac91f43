package symfile

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
)

// TestPublicIndexCompact indexes a file made only of PUBLIC records (issue
// 26, item 5): the index may allocate little more than its one array of
// 16-byte entries, where appending per chunk and concatenating allocated
// about three times it.
func TestPublicIndexCompact(t *testing.T) {
	var sym bytes.Buffer
	if err := hostile.PublicSymbols(&sym, 48<<20); err != nil {
		t.Fatal(err)
	}
	records := bytes.Count(sym.Bytes(), []byte("\nPUBLIC "))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := NewFile(sym.Bytes(), "public.sym")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.pubs) != records {
		t.Fatalf("%d PUBLIC records indexed, %d in the file", len(f.pubs), records)
	}
	array := uint64(records) * 16
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > array+array/4 {
		t.Errorf("indexing %d PUBLIC records allocated %d bytes, over 1.25 times their %d-byte array", records, alloc, array)
	}
}
