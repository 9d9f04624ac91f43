package minidump

import (
	"bytes"
	"testing"
)

// TestMemoryList checks lookups and reads on a dump with two adjacent
// regions from MemoryListStream and one from Memory64ListStream.
func TestMemoryList(t *testing.T) {
	// Stream bodies are laid out by synthDump after the header and directory;
	// the memory bytes follow them in the tail. Compute offsets once built.
	memList := u32s(2, 0x1000, 0, 8, 0 /*rva patched*/, 0x1008, 0, 8, 0)
	mem64 := u32s(1, 0, 0 /*base rva patched*/, 0, 0x2000, 0, 4, 0)
	streams := map[StreamType][]byte{StreamMemoryList: memList, StreamMemory64List: mem64}
	data := synthDump(streams, nil)
	tailOff := uint32(len(data))
	// Patch RVAs to point at the tail: region A (8 bytes), region B (8), region C (4).
	le.PutUint32(memList[16:], tailOff)
	le.PutUint32(memList[32:], tailOff+8)
	le.PutUint32(mem64[8:], tailOff+16)
	tail := []byte("AAAAAAAABBBBBBBBCCCC")
	data = synthDump(streams, tail)
	f, err := NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Memory()
	if err != nil {
		t.Fatal(err)
	}
	if rs := m.Regions(); len(rs) != 3 || rs[0].Base != 0x1000 || rs[1].Base != 0x1008 || rs[2].Base != 0x2000 || rs[2].Size != 4 {
		t.Fatalf("regions %+v", rs)
	}
	p := make([]byte, 4)
	if err := m.ReadMemory(0x1004, p); err != nil || string(p) != "AAAA" {
		t.Errorf("read in A: %q %v", p, err)
	}
	if err := m.ReadMemory(0x2000, p); err != nil || string(p) != "CCCC" {
		t.Errorf("read in C (64-bit list): %q %v", p, err)
	}
	if err := m.ReadMemory(0x1006, p); err == nil {
		t.Error("read straddling A and B succeeded")
	}
	if err := m.ReadMemory(0x2002, p); err == nil {
		t.Error("read past the end of C succeeded")
	}
	if err := m.ReadMemory(0x3000, p); err == nil {
		t.Error("read outside all regions succeeded")
	}
	if err := m.ReadMemory(0xffffffffffffffff, p); err == nil {
		t.Error("read at the top of the address space succeeded")
	}
	if r, ok := m.Region(0x100f); !ok || r.Base != 0x1008 {
		t.Errorf("Region(0x100f) = %+v %v", r, ok)
	}
	if _, ok := m.Region(0x1010); ok {
		t.Error("Region(0x1010) found a region")
	}
	if b, err := m.Regions()[1].Bytes(); err != nil || string(b) != "BBBBBBBB" {
		t.Errorf("B bytes %q %v", b, err)
	}
	var none *MemoryList
	if _, ok := none.Region(0x1000); ok || none.ReadMemory(0x1000, p) == nil || none.Regions() != nil {
		t.Error("nil MemoryList is not empty")
	}
}
