package cab

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
)

// lzxCabinets are testdata's LZX cabinets, made by Microsoft's tools
// (testdata/README.md), with the size and SHA-256 of each file: those of
// the original files (node-cabarc's sources) and of cabextract's output.
var lzxCabinets = []struct {
	file  string
	names []string
	sizes []int
	sums  []string
}{
	{"cabarc-lzx15.cab", []string{`README.md`, `foldername\somefile.txt`}, []int{182, 126},
		[]string{"e784118be67083d33069c6dd5098acc7153b09fb2c98a15a8fb8884e4e7d8641", "1b751cc861af94abb5a1b40027990edae26cdd4f7d69630b648d960984dad18f"}},
	{"cabarc-lzx21.cab", []string{`README.md`, `foldername\somefile.txt`}, []int{182, 126},
		[]string{"e784118be67083d33069c6dd5098acc7153b09fb2c98a15a8fb8884e4e7d8641", "1b751cc861af94abb5a1b40027990edae26cdd4f7d69630b648d960984dad18f"}},
	{"libmspack-lzx21-large.cab", []string{"large-files.cab"}, []int{14689228},
		[]string{"30e0e3f37c7bdd389b5d1c73d08b2e2b422c50b5c32362e9995504e7c80cb1c1"}},
	{"libmspack-mixed.cab", []string{"mszip.txt", "lzx.txt"}, []int{57, 187},
		[]string{"6a2d9536b995c42a9b9daa2c2eaabf9a1e13e594669a420f8d3e66150af33cff", "e978598104671296857e0543f4280f4d4e0506dd3cad5162e9f2a4f604fafc78"}},
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLZXCabinets(t *testing.T) {
	for _, c := range lzxCabinets {
		b := readTestdata(t, c.file)
		for i, name := range c.names {
			got, err := extract(t, b, name, 32<<20)
			if err != nil {
				t.Errorf("%s: %s: %v", c.file, name, err)
				continue
			}
			sum := sha256.Sum256(got)
			if len(got) != c.sizes[i] || hex.EncodeToString(sum[:]) != c.sums[i] {
				t.Errorf("%s: %s: %d bytes, SHA-256 %x; want %d bytes, %s", c.file, name, len(got), sum, c.sizes[i], c.sums[i])
			}
		}
	}
	// Quantum stays unsupported.
	if _, err := extract(t, readTestdata(t, "libmspack-mixed.cab"), "qtm.txt", 1<<20); !errors.Is(err, ErrUnsupported) {
		t.Errorf("qtm.txt: %v, want ErrUnsupported", err)
	}
}

// TestLZXCabextract: every LZX file of testdata extracts as cabextract
// (libmspack; Debian package cabextract, which .ci/run installs) extracts
// it.
func TestLZXCabextract(t *testing.T) {
	cabextract, err := exec.LookPath("cabextract")
	if err != nil {
		t.Skip("cabextract not installed (Debian package cabextract)")
	}
	for _, c := range lzxCabinets {
		b := readTestdata(t, c.file)
		for _, name := range c.names {
			path := strings.ReplaceAll(name, `\`, "/")
			want, err := exec.Command(cabextract, "-q", "-p", "-F", path, filepath.Join("testdata", c.file)).Output()
			if err != nil {
				t.Fatalf("cabextract %s %s: %v", c.file, path, err)
			}
			got, err := extract(t, b, name, 32<<20)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: %s: %d bytes (%v), cabextract's %d", c.file, name, len(got), err, len(want))
			}
		}
	}
}

// lzxFolder returns a copy of the large LZX cabinet with its blocks'
// checksums cleared, and the offset of its first block.
func lzxFolder(t testing.TB) ([]byte, int) {
	b := readTestdata(t, "libmspack-lzx21-large.cab")
	le := binary.LittleEndian
	first := int(le.Uint32(b[headerSize:]))
	for off, i := first, 0; i < int(le.Uint16(b[headerSize+4:])); i++ {
		le.PutUint32(b[off:], 0)
		off += 8 + int(le.Uint16(b[off+4:]))
	}
	return b, first
}

func TestLZXHostile(t *testing.T) {
	le := binary.LittleEndian
	cases := []struct {
		name string
		edit func(b []byte, first int) []byte
	}{
		{"window 2^22", func(b []byte, _ int) []byte { le.PutUint16(b[headerSize+6:], 3|22<<8); return b }},
		{"window 2^14", func(b []byte, _ int) []byte { le.PutUint16(b[headerSize+6:], 3|14<<8); return b }},
		{"block type 7", func(b []byte, first int) []byte { b[first+8+1] = b[first+8+1]&0x0f | 0x70; return b }},
		{"short middle block", func(b []byte, first int) []byte { le.PutUint16(b[first+6:], 1000); return b }},
		{"truncated", func(b []byte, _ int) []byte { return b[:len(b)-200] }},
		{"block cut short", func(b []byte, first int) []byte {
			le.PutUint16(b[first+4:], 10)
			return b
		}},
	}
	for _, c := range cases {
		b, first := lzxFolder(t)
		_, err := extract(t, c.edit(b, first), "large-files.cab", 32<<20)
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a FormatError", c.name, err)
		}
	}
	// libmspack's crafted LZX cabinets, which cabextract refuses too.
	for _, name := range []string{"libmspack-lzx-premature-matches.cab", "libmspack-lzx-main-tree-no-lengths.cab"} {
		var fe *FormatError
		if _, err := extract(t, readTestdata(t, name), "file.txt", 1<<20); !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a FormatError", name, err)
		}
	}
	b, _ := lzxFolder(t)
	if _, err := extract(t, b, "large-files.cab", 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Errorf("limit 1 MiB: %v, want ErrTooLarge", err)
	}
}

// TestLZXBitFlips: a flipped bit anywhere in the compressed data gives an
// error or other bytes, never a panic (the fuzz target explores further).
func TestLZXBitFlips(t *testing.T) {
	b, first := lzxFolder(t)
	for off := first + 8; off < min(len(b), first+8+400); off += 3 {
		m := append([]byte{}, b...)
		m[off] ^= 1 << (off % 8)
		c, err := Open(bytes.NewReader(m), int64(len(m)))
		if err != nil {
			t.Fatal(err)
		}
		c.folderData(c.folders[0], 4*lzxFrame)
	}
}

// TestUndoE8: the example of MS-CAB's E8 preprocessing, worked by hand:
// a CALL at stream offset 0x100 whose target was written as the absolute
// 0x1234 becomes 0x1234-0x100; targets outside [-offset, file size) stay.
func TestUndoE8(t *testing.T) {
	frame := make([]byte, 64)
	frame[0] = 0xe8
	binary.LittleEndian.PutUint32(frame[1:], 0x1234)
	frame[20] = 0xe8
	binary.LittleEndian.PutUint32(frame[21:], 0x7000000) // past the file size
	frame[30] = 0xe8
	binary.LittleEndian.PutUint32(frame[31:], uint32(0xfffffff0)) // -16: before the file's end
	frame[60] = 0xe8                                              // in the last 10 bytes: left alone
	undoE8(frame, 0x100, 0x10000)
	le := binary.LittleEndian
	if got := le.Uint32(frame[1:]); got != 0x1234-0x100 {
		t.Errorf("E8 at 0x100: %#x, want %#x", got, 0x1234-0x100)
	}
	if got := le.Uint32(frame[21:]); got != 0x7000000 {
		t.Errorf("E8 past the file size rewritten: %#x", got)
	}
	if got := le.Uint32(frame[31:]); got != 0x10000-16 {
		t.Errorf("negative E8: %#x, want %#x", got, 0x10000-16)
	}
	if frame[61] != 0 {
		t.Errorf("E8 in the last 10 bytes rewritten")
	}
}

// FuzzLZX decodes hostile LZX streams: a window size from the first
// byte, four 32 KiB frames from the rest, within fuzzbudget's bounds.
func FuzzLZX(f *testing.F) {
	b, first := lzxFolder(f)
	f.Add(append([]byte{21}, b[first+8:first+8+2000]...))
	f.Add(append([]byte{15}, readTestdata(f, "cabarc-lzx15.cab")[0x76:]...))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		fuzzbudget.Default.Run(t, func() {
			d, err := newLZX(int(in[0]))
			if err != nil {
				return
			}
			d.br.in = in[1:]
			var out []byte
			for range 4 {
				if out, err = d.frameOut(out, lzxFrame); err != nil {
					return
				}
			}
		})
	})
}
