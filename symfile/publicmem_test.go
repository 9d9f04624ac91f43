package symfile

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"sync/atomic"
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
	if f.pubs.len() != records {
		t.Fatalf("%d PUBLIC records indexed, %d in the file", f.pubs.len(), records)
	}
	array := uint64(records) * 16
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > array+array/4 {
		t.Errorf("indexing %d PUBLIC records allocated %d bytes, over 1.25 times their %d-byte array", records, alloc, array)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// TestPublicIndexReadsOnce indexes a file on disk made only of PUBLIC
// records (issue 29): the pass reads the file once (counting the PUBLIC
// lines first read it twice), holds the records in reserved memory rather
// than the heap (sequencer), and gives back the reserved pages past the
// last record.
func TestPublicIndexReadsOnce(t *testing.T) {
	var sym bytes.Buffer
	if err := hostile.PublicSymbols(&sym, 24<<20); err != nil {
		t.Fatal(err)
	}
	data := sym.Bytes()
	records := bytes.Count(data, []byte("\nPUBLIC "))
	r := &countingReader{r: bytes.NewReader(data)}
	released := 0
	f := &File{name: "public.sym", data: data, unmap: func() error { released++; return nil }}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const chunk = 256 << 10 // so that a worker's arrays are small beside the records
	f.buildIndex(chunk, &diskSource{r: r, release: func(lo, hi int) {}})
	runtime.ReadMemStats(&after)
	if f.pubs.len() != records {
		t.Fatalf("%d PUBLIC records indexed, %d in the file", f.pubs.len(), records)
	}
	if got := r.n.Load(); got != int64(len(data)) {
		t.Errorf("the index pass read %d bytes of a %d-byte file", got, len(data))
	}
	// The heap holds the workers' read buffers (readChunk) and the arrays
	// they index a chunk into, not the file's records.
	buffers := uint64(runtime.GOMAXPROCS(0)) * (chunk + chunk/8)
	array := uint64(records) * 16
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > buffers+array/4 {
		t.Errorf("indexing %d PUBLIC records allocated %d bytes of heap, read buffers %d, their array %d bytes", records, alloc, buffers, array)
	}
	mem := f.pubMem.size()
	if pg := os.Getpagesize(); mem > int(array)+pg {
		t.Errorf("%d bytes reserved after the index pass, the records take %d", mem, array)
	}
	if err := f.Close(); err != nil || released != 1 {
		t.Errorf("Close: %v, the mapping released %d times", err, released)
	}
	if f.pubMem.size() != 0 {
		t.Error("reserved memory kept after Close")
	}
}

// TestHeapBytesOfReservedIndex: a File whose records are in reserved
// memory reports their size, not the reservation's (a memory-bounded
// cache adds HeapBytes to Size).
func TestHeapBytesOfReservedIndex(t *testing.T) {
	var sym bytes.Buffer
	if err := hostile.PublicSymbols(&sym, 4<<20); err != nil {
		t.Fatal(err)
	}
	data := sym.Bytes()
	inMemory, err := NewFile(data, "public.sym")
	if err != nil {
		t.Fatal(err)
	}
	onDisk := &File{name: "public.sym", data: data, unmap: func() error { return nil }}
	onDisk.buildIndex(defaultChunkSize, &diskSource{r: bytes.NewReader(data), release: func(lo, hi int) {}})
	defer onDisk.Close()
	if onDisk.pubMem == nil {
		t.Fatal("the records of a file on disk are not in reserved memory")
	}
	if got, want := onDisk.HeapBytes(), inMemory.HeapBytes(); got > want {
		t.Errorf("HeapBytes %d with the records in reserved memory, %d on the heap", got, want)
	}
}

// size is the reserved memory in use, in bytes (tests only).
func (r *reservation) size() int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.used
}
