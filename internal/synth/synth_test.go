package synth

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

func TestStackLabels(t *testing.T) {
	s := NewStack(0x1000, 4)
	s.WordLabel("later", 4).D32(0xcafef00d).Mark("later").Word(0x11223344)
	got, err := s.Finish()
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x0c, 0x10, 0, 0, 0x0d, 0xf0, 0xfe, 0xca, 0x44, 0x33, 0x22, 0x11}
	if !bytes.Equal(got, want) {
		t.Errorf("stack bytes = % x, want % x", got, want)
	}
	if a, ok := s.Label("later"); !ok || a != 0x1008 {
		t.Errorf("Label(later) = %#x, %v; want 0x1008", a, ok)
	}
	if s.Here() != 0x100c || s.Size() != 12 {
		t.Errorf("Here = %#x, Size = %d", s.Here(), s.Size())
	}
	s64 := NewStack(0x2000, 8).Append(3, 0xff).Align(8).WordLabel("nowhere", 0)
	if _, err := s64.Finish(); err == nil {
		t.Error("Finish with an unmarked label succeeded")
	}
	if s64.Size() != 16 {
		t.Errorf("aligned 64-bit stack size = %d, want 16", s64.Size())
	}
}

func TestUnsupportedArchitecture(t *testing.T) {
	b := New(minidump.ArchMIPS, Linux)
	b.AddThread(1, minidump.NewContext(minidump.ArchMIPS), 0, nil)
	if _, err := b.Bytes(); err == nil {
		t.Error("Bytes with a MIPS thread context succeeded")
	}
}

// TestMemory64List checks the Memory64List layout against the format
// (MINIDUMP_MEMORY64_LIST: count, base RVA, then address/size pairs whose
// data follows contiguously). Breakpad does not read this stream, so the
// check decodes it directly.
func TestMemory64List(t *testing.T) {
	b := New(minidump.ArchAMD64, Linux)
	b.Memory64 = true
	b.AddMemory(0x1000, []byte("abcd")).AddMemory(0x9000, []byte("xyz"))
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	rva, size, ok := b.StreamLocation(StreamMemory64List)
	if !ok || size != 16+2*16 {
		t.Fatalf("Memory64List at %d size %d ok %v", rva, size, ok)
	}
	le := binary.LittleEndian
	if n := le.Uint64(data[rva:]); n != 2 {
		t.Fatalf("count = %d", n)
	}
	base := le.Uint64(data[rva+8:])
	if a, s := le.Uint64(data[rva+16:]), le.Uint64(data[rva+24:]); a != 0x1000 || s != 4 {
		t.Errorf("range 0 = %#x+%d", a, s)
	}
	if a, s := le.Uint64(data[rva+32:]), le.Uint64(data[rva+40:]); a != 0x9000 || s != 3 {
		t.Errorf("range 1 = %#x+%d", a, s)
	}
	if got := string(data[base : base+7]); got != "abcdxyz" {
		t.Errorf("memory bytes = %q", got)
	}
}
