package minidump

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// ReadAt reads the file's bytes as io.ReaderAt does, memory-mapped or not.
func TestReadAt(t *testing.T) {
	data := synthDump(map[StreamType][]byte{StreamSystemInfo: make([]byte, 56)}, []byte("tail bytes"))
	p := filepath.Join(t.TempDir(), "d.dmp")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mapped, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer mapped.Close()
	read, err := NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(data))
	for _, f := range []*File{mapped, read} {
		for _, c := range []struct {
			off     int64
			n, want int
			err     error
		}{
			{0, 32, 32, nil},
			{size - 4, 4, 4, nil},
			{size - 4, 10, 4, io.EOF},
			{size, 1, 0, io.EOF},
			{size + 100, 1, 0, io.EOF},
			{size, 0, 0, nil},
		} {
			p := make([]byte, c.n)
			n, err := f.ReadAt(p, c.off)
			if n != c.want || err != c.err {
				t.Errorf("ReadAt(%d bytes, %d) = %d, %v; want %d, %v", c.n, c.off, n, err, c.want, c.err)
				continue
			}
			if n > 0 && !bytes.Equal(p[:n], data[c.off:c.off+int64(n)]) {
				t.Errorf("ReadAt(%d bytes, %d): wrong bytes", c.n, c.off)
			}
		}
		if _, err := f.ReadAt(make([]byte, 1), -1); err == nil {
			t.Error("ReadAt at a negative offset succeeded")
		}
	}
}
