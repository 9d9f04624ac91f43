package machofile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

const symbolicMacOS = "../../shared/corpus/symbolic/macos/"

func sharedFile(t *testing.T, name string) string {
	t.Helper()
	p := symbolicMacOS + name
	if _, err := os.Stat(p); err != nil {
		t.Skipf("../shared is absent: %v", err)
	}
	return p
}

// TestSymbolicCrash checks the identity of symbolic's x86_64 fixture
// against Breakpad's Mac dump_syms output for it (crash.sym's MODULE
// line) and its dSYM's.
func TestSymbolicCrash(t *testing.T) {
	path := sharedFile(t, "crash")
	f, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	sym, err := os.ReadFile(sharedFile(t, "crash.sym"))
	if err != nil {
		t.Fatal(err)
	}
	module := strings.Fields(strings.SplitN(string(sym), "\n", 2)[0]) // MODULE mac x86_64 ID crash
	if f.Arch != module[2] || f.DebugID() != module[3] {
		t.Errorf("arch %s id %s, Breakpad's MODULE line says %s %s", f.Arch, f.DebugID(), module[2], module[3])
	}
	if f.TextAddr != 0x100000000 {
		t.Errorf("__TEXT at %#x", f.TextAddr)
	}
	dsym := DSYMFile(path)
	if dsym != path+".dSYM/Contents/Resources/DWARF/crash" {
		t.Fatalf("DSYMFile = %q", dsym)
	}
	d, err := Open(dsym, "x86_64")
	if err != nil {
		t.Fatal(err)
	}
	if d.UUID != f.UUID {
		t.Errorf("dSYM UUID %X, binary's %X", d.UUID, f.UUID)
	}
	if data, _, err := d.SectionData("__DWARF", "__debug_info"); err != nil || len(data) != 0x31f05 {
		t.Errorf("__debug_info: %d bytes, %v", len(data), err)
	}
	if DSYMFile(path+".dSYM") != dsym {
		t.Errorf("DSYMFile of the bundle differs")
	}
}

// TestFunctionStarts compares LC_FUNCTION_STARTS with llvm-objdump's.
func TestFunctionStarts(t *testing.T) {
	path := sharedFile(t, "crash")
	f, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	starts, err := f.FunctionStarts()
	if err != nil {
		t.Fatal(err)
	}
	if len(starts) != 194 || starts[0] != 0x100000d20 {
		t.Fatalf("%d starts, first %#x", len(starts), starts)
	}
	if _, err := exec.LookPath("llvm-objdump"); err != nil {
		t.Skip("no llvm-objdump: the count and first start were checked only")
	}
	out, err := exec.Command("llvm-objdump", "--macho", "--function-starts", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []uint64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, err := strconv.ParseUint(strings.TrimSpace(sc.Text()), 16, 64); err == nil {
			want = append(want, v)
		}
	}
	if len(want) != len(starts) {
		t.Fatalf("%d starts, llvm-objdump %d", len(starts), len(want))
	}
	for i := range want {
		if want[i] != starts[i] {
			t.Fatalf("start %d: %#x, llvm-objdump %#x", i, starts[i], want[i])
		}
	}
}

// TestFat builds a universal file of two copies of the fixture and picks
// each architecture, or refuses to guess.
func TestFat(t *testing.T) {
	thin, err := os.ReadFile(sharedFile(t, "crash"))
	if err != nil {
		t.Fatal(err)
	}
	// A second slice: the same file relabelled arm64 (CPU type at offset 4).
	arm := append([]byte(nil), thin...)
	binary.LittleEndian.PutUint32(arm[4:], 0x0100000c)
	binary.LittleEndian.PutUint32(arm[8:], 0)
	fat := makeFat(thin, arm)
	slices, err := Slices(bytes.NewReader(fat), int64(len(fat)))
	if err != nil || len(slices) != 2 || slices[0].Arch != "x86_64" || slices[1].Arch != "arm64" {
		t.Fatalf("slices %v, %v", slices, err)
	}
	if f, err := NewFile(bytes.NewReader(fat), int64(len(fat)), "arm64"); err != nil || f.Arch != "arm64" {
		t.Fatalf("arm64: %v", err)
	}
	if _, err := NewFile(bytes.NewReader(fat), int64(len(fat)), ""); err == nil || !strings.Contains(err.Error(), "x86_64, arm64") {
		t.Errorf("no arch chosen: %v", err)
	}
	if _, err := NewFile(bytes.NewReader(fat), int64(len(fat)), "ppc"); err == nil {
		t.Errorf("ppc chosen from a file without it")
	}
	// A slice past the end.
	binary.BigEndian.PutUint32(fat[8+20+8:], uint32(len(fat)))
	_, err = Slices(bytes.NewReader(fat), int64(len(fat)))
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Errorf("slice past the end: %v", err)
	}
}

// makeFat lays slices out as a big-endian fat file aligned to 4096.
func makeFat(slices ...[]byte) []byte {
	hdr := make([]byte, 8+20*len(slices))
	binary.BigEndian.PutUint32(hdr, 0xcafebabe)
	binary.BigEndian.PutUint32(hdr[4:], uint32(len(slices)))
	out := hdr
	for i, s := range slices {
		for len(out)%4096 != 0 {
			out = append(out, 0)
		}
		a := out[8+20*i:]
		binary.BigEndian.PutUint32(a, binary.LittleEndian.Uint32(s[4:]))
		binary.BigEndian.PutUint32(a[4:], binary.LittleEndian.Uint32(s[8:]))
		binary.BigEndian.PutUint32(a[8:], uint32(len(out)))
		binary.BigEndian.PutUint32(a[12:], uint32(len(s)))
		binary.BigEndian.PutUint32(a[16:], 12)
		out = append(out, s...)
	}
	return out
}

func TestMalformed(t *testing.T) {
	thin, err := os.ReadFile(sharedFile(t, "crash"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 3, 27, 40, 200} {
		if _, err := NewFile(bytes.NewReader(thin[:n]), int64(n), ""); err == nil {
			t.Errorf("truncated at %d: no error", n)
		} else if !errors.As(err, new(*FormatError)) {
			t.Errorf("truncated at %d: %T %v", n, err, err)
		}
	}
}
