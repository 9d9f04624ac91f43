package synth

import (
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

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
