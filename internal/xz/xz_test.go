package xz

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
	upstream "github.com/ulikunitz/xz"
)

// testInput is the content of testdata's files (testdata/README.md).
func testInput() []byte {
	var b bytes.Buffer
	for i := range 600 {
		fmt.Fprintf(&b, "line %d of the test input: %x\n", i, uint64(i)*2654435761%(1<<32))
	}
	x := uint32(12345)
	for range 3000 {
		x = (x*1103515245 + 12345) & 0x7fffffff
		b.WriteByte(byte(x >> 16))
	}
	return b.Bytes()
}

func decompress(t testing.TB, data []byte) ([]byte, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// TestXZUtilsFiles reads what XZ Utils wrote: each check type, several
// blocks with sizes in their headers, two streams with stream padding, an
// empty file.
func TestXZUtilsFiles(t *testing.T) {
	in := testInput()
	if sum := sha256.Sum256(in); hex.EncodeToString(sum[:]) != "79db25b7e8a9b3caa87dfcd4e73db396875428732e73c4869bae9ced31de879c" {
		t.Fatalf("testInput is not the content the files were made from (testdata/README.md)")
	}
	for _, name := range []string{"crc64.xz", "crc32-blocks.xz", "sha256.xz", "none.xz", "streams-padding.xz", "empty.xz"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		want := in
		if name == "empty.xz" {
			want = []byte{}
		}
		got, err := decompress(t, data)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v; want %d bytes", name, len(got), err, len(want))
		}
	}
}

// TestAgainstUlikunitz: what github.com/ulikunitz/xz's writer writes
// (each check, small blocks, empty and incompressible input) reads back.
func TestAgainstUlikunitz(t *testing.T) {
	in := testInput()
	for _, check := range []byte{upstream.None, upstream.CRC32, upstream.CRC64, upstream.SHA256} {
		for _, blockSize := range []int64{0, 4096} {
			for _, size := range []int{0, 1, 5000, len(in)} {
				var buf bytes.Buffer
				w, err := upstream.WriterConfig{CheckSum: check, BlockSize: blockSize}.NewWriter(&buf)
				if err != nil {
					t.Fatal(err)
				}
				w.Write(in[:size])
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				got, err := decompress(t, buf.Bytes())
				if err != nil || !bytes.Equal(got, in[:size]) {
					t.Errorf("check %d, blocks %d, %d bytes: got %d bytes, %v", check, blockSize, size, len(got), err)
				}
			}
		}
	}
}

// TestDamaged: every truncation and every single-byte change of a file
// with a check is an error (never a panic, never other bytes than the
// file's).
func TestDamaged(t *testing.T) {
	in := testInput()
	for _, name := range []string{"crc32-blocks.xz", "streams-padding.xz"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(data); n += 1 + n%97 {
			// Cut after the first stream or the second (or their
			// padding), the file is those streams.
			if got, err := decompress(t, data[:n]); err == nil && !(name == "streams-padding.xz" &&
				(bytes.Equal(got, in[:10000]) || bytes.Equal(got, in))) {
				t.Fatalf("%s cut to %d bytes: no error, %d bytes", name, n, len(got))
			}
		}
		step := max(1, len(data)/60)
		for i := 0; i < len(data); i += step {
			bad := bytes.Clone(data)
			bad[i] ^= 0x41
			got, err := decompress(t, bad)
			if err == nil && !bytes.Equal(got, in) {
				t.Fatalf("%s with byte %d changed: no error and other content", name, i)
			}
			if err == nil && !(name == "streams-padding.xz" && i >= len(data)-4) {
				t.Errorf("%s with byte %d changed: no error", name, i)
			}
		}
	}
}

// Errors name the offset where the input stops being xz.
func TestErrorsNameOffsets(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "crc64.xz"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		at   int
		want string
	}{
		{"magic", 0, "no stream header magic at offset 0"},
		{"block header", 13, "block header CRC32 mismatch at offset 12"},
		{"check", len(data) - 12 - 16, "mismatches at offset"},
		{"footer", len(data) - 1, "bad stream footer at offset"},
	} {
		bad := bytes.Clone(data)
		bad[c.at] ^= 0x41
		if _, err := decompress(t, bad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := decompress(t, append(bytes.Clone(data), 1, 2, 3, 4)); err == nil || !strings.Contains(err.Error(), "no stream header magic") {
		t.Errorf("trailing garbage: %v", err)
	}
	if _, err := decompress(t, append(bytes.Clone(data), 0, 0)); err == nil {
		t.Error("stream padding not a multiple of 4 bytes: no error")
	}
}

// FuzzReader reads arbitrary bytes as .xz within fuzzbudget's bounds (a
// declared dictionary is allocated whole, so a bomb shows as bytes), and
// checks what it reads in full against ulikunitz/xz's reader.
func FuzzReader(f *testing.F) {
	for _, name := range []string{"crc32-blocks.xz", "none.xz", "streams-padding.xz", "empty.xz"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []byte
		var err error
		fuzzbudget.Default.Run(t, func() { got, err = decompress(t, data) })
		if err != nil {
			return
		}
		// What we read in full, ulikunitz/xz reads the same.
		r, err := upstream.NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		want, err := io.ReadAll(r)
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("%d bytes, ulikunitz/xz reads %d", len(got), len(want))
		}
	})
}
