package minidump

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenSmallFileRead: a dump up to readWholeBytes is read into memory,
// a larger one mapped, and both read as NewFile reads the same bytes.
func TestOpenSmallFileRead(t *testing.T) {
	memList := u32s(1, 0x1000, 0, 8, 0 /*rva patched*/)
	data := synthDump(map[StreamType][]byte{StreamMemoryList: memList}, nil)
	le.PutUint32(memList[16:], uint32(len(data)))
	data = synthDump(map[StreamType][]byte{StreamMemoryList: memList}, []byte("8 bytes!"))
	for _, pad := range []int{0, readWholeBytes} {
		path := filepath.Join(t.TempDir(), "d.dmp")
		if err := os.WriteFile(path, append(bytes.Clone(data), make([]byte, pad)...), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err != nil {
			t.Fatalf("pad %d: %v", pad, err)
		}
		if mapped := f.closer != nil; mapped != (pad > 0) || f.InMemory() != (pad == 0) {
			t.Errorf("pad %d: mapped %v, InMemory %v", pad, mapped, f.InMemory())
		}
		ml, err := f.Memory()
		if err != nil {
			t.Fatalf("pad %d: %v", pad, err)
		}
		got := make([]byte, 8)
		if err := ml.ReadMemory(0x1000, got); err != nil || string(got) != "8 bytes!" {
			t.Errorf("pad %d: memory %q, %v", pad, got, err)
		}
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestOpenReadShort: a file shorter than its size when read (truncated
// meanwhile) is an error naming it.
func TestOpenReadShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.dmp")
	if err := os.WriteFile(path, synthDump(nil, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	osf, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = openRead(osf, path, 1000)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != path || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("error %v: want a *fs.PathError naming %s", err, path)
	}
}

// TestFromBytes: FromBytes reads the bytes given in place, as Open reads a
// small file; NewFile's reads through a ReaderAt are not in memory.
func TestFromBytes(t *testing.T) {
	memList := u32s(1, 0x1000, 0, 8, 0 /*rva patched*/)
	data := synthDump(map[StreamType][]byte{StreamMemoryList: memList}, nil)
	le.PutUint32(memList[16:], uint32(len(data)))
	data = synthDump(map[StreamType][]byte{StreamMemoryList: memList}, []byte("8 bytes!"))
	f, err := FromBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	ml, err := f.Memory()
	if err != nil {
		t.Fatal(err)
	}
	region, ok := ml.Region(0x1000)
	if !ok {
		t.Fatal("no region at 0x1000")
	}
	b, err := region.Bytes()
	if err != nil || string(b) != "8 bytes!" || !f.InMemory() {
		t.Fatalf("region bytes %q, %v; InMemory %v", b, err, f.InMemory())
	}
	if &b[0] != &data[len(data)-8] {
		t.Error("the region's bytes are a copy, not the data given")
	}
	if _, err := FromBytes(data[:10]); err == nil {
		t.Error("FromBytes of 10 bytes: no error")
	}
	g, err := NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil || g.InMemory() {
		t.Errorf("NewFile: %v, InMemory %v", err, g != nil && g.InMemory())
	}
}
