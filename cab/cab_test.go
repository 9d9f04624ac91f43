package cab

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/cabwriter"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
)

// content is test data of several 32 KiB blocks whose later blocks repeat
// earlier ones, so MSZIP blocks refer back into their predecessors.
func content() []byte {
	var b bytes.Buffer
	for i := range 12000 {
		fmt.Fprintf(&b, "line %d of the test content %d\n", i%3000, i/3000)
	}
	return b.Bytes()
}

func extract(t *testing.T, b []byte, name string, limit int64) ([]byte, error) {
	t.Helper()
	c, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	f, ok := c.Find(name)
	if !ok {
		return nil, fmt.Errorf("no %s", name)
	}
	return c.Extract(f, limit)
}

func TestExtract(t *testing.T) {
	want := content()
	for _, mszip := range []bool{false, true} {
		got, err := extract(t, cabwriter.Build("a.pdb", want, mszip), "A.PDB", 1<<20)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("mszip %v: %d bytes, %v", mszip, len(got), err)
		}
		if _, err := extract(t, cabwriter.Build("a.pdb", want, mszip), "a.pdb", 1000); !errors.Is(err, ErrTooLarge) {
			t.Errorf("mszip %v: limit 1000 gave %v", mszip, err)
		}
	}
}

// TestGcab: cabinets made by GNOME's gcab (Debian package gcab; .ci/run
// installs it) extract to their content, and gcab extracts ours.
func TestGcab(t *testing.T) {
	gcab, err := exec.LookPath("gcab")
	if err != nil {
		t.Skip("gcab not installed (Debian package gcab)")
	}
	dir := t.TempDir()
	want := content()
	if err := os.WriteFile(filepath.Join(dir, "t.pdb"), want, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-c", "-n"}, {"-c", "-n", "-z"}} {
		cabPath := filepath.Join(dir, "t.pd_")
		cmd := exec.Command(gcab, append(args, cabPath, filepath.Join(dir, "t.pdb"))...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcab %v: %v: %s", args, err, out)
		}
		b, _ := os.ReadFile(cabPath)
		got, err := extract(t, b, "t.pdb", 1<<20)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("gcab %v: %d bytes, %v", args, len(got), err)
		}
	}
	ours := filepath.Join(dir, "ours.cab")
	os.WriteFile(ours, cabwriter.Build("x.pdb", want, true), 0o644)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	if b, err := exec.Command(gcab, "-x", "-C", out, ours).CombinedOutput(); err != nil {
		t.Fatalf("gcab -x: %v: %s", err, b)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "x.pdb")); !bytes.Equal(got, want) {
		t.Errorf("gcab extracted %d bytes of our cabinet, want %d", len(got), len(want))
	}
}

func TestHostile(t *testing.T) {
	good := cabwriter.Build("a.pdb", content(), true)
	le := binary.LittleEndian
	cases := []struct {
		name string
		edit func([]byte) []byte
		off  int64 // FormatError offset, or -1 for ErrUnsupported
	}{
		{"magic", func(b []byte) []byte { b[0] = 'X'; return b }, 0},
		{"spanned", func(b []byte) []byte { b[30] = flagNext; return b }, -1},
		{"Quantum", func(b []byte) []byte { le.PutUint16(b[headerSize+6:], 2|7<<8); return b }, -1},
		{"folder index", func(b []byte) []byte { le.PutUint16(b[headerSize+8+8:], 7); return b }, headerSize + 8 + 8},
		{"folder data past the end", func(b []byte) []byte { le.PutUint32(b[headerSize:], 1<<30); return b }, headerSize},
		{"block past the end", func(b []byte) []byte {
			off := int(le.Uint32(b[headerSize:]))
			le.PutUint16(b[off+4:], 0xffff)
			return b
		}, -2},
		{"block signature", func(b []byte) []byte {
			off := int(le.Uint32(b[headerSize:]))
			b[off+8] = 'X'
			return b
		}, -2},
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }, -2},
		{"checksum", func(b []byte) []byte { b[len(b)-3] ^= 0x55; return b }, -2},
	}
	for _, c := range cases {
		b := c.edit(append([]byte{}, good...))
		_, err := extract(t, b, "a.pdb", 1<<20)
		var fe *FormatError
		switch {
		case c.off == -1:
			if !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s: %v, want ErrUnsupported", c.name, err)
			}
		case !errors.As(err, &fe) || (c.off >= 0 && fe.Off != c.off):
			t.Errorf("%s: %v, want a FormatError at %#x", c.name, err, c.off)
		}
	}
}

// FuzzExtract extracts every file of hostile cabinets within fuzzbudget's
// bounds.
func FuzzExtract(f *testing.F) {
	f.Add(cabwriter.Build("a.pdb", content()[:70000], true))
	f.Add(cabwriter.Build("a.pdb", content()[:5000], false))
	f.Add(readTestdata(f, "cabarc-lzx21.cab"))
	f.Add(readTestdata(f, "libmspack-mixed.cab"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzbudget.Default.Run(t, func() {
			c, err := Open(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				return
			}
			for i := range c.Files {
				c.Extract(&c.Files[i], 64<<20)
			}
		})
	})
}
