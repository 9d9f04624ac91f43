package compactunwind

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/machofile"
)

const symbolicCrash = "../../shared/corpus/symbolic/macos/crash"

func openTable(t *testing.T, path string) (*machofile.File, *Table) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no %s: %v", path, err)
	}
	f, err := machofile.Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	data, _, err := f.SectionData("__TEXT", "__unwind_info")
	if err != nil || data == nil {
		t.Fatalf("__unwind_info: %v", err)
	}
	arch := X86_64
	if f.Arch == "arm64" {
		arch = ARM64
	}
	tab, err := Parse(data, f.TextAddr, arch)
	if err != nil {
		t.Fatal(err)
	}
	return f, tab
}

var objdumpEntry = regexp.MustCompile(`^\s+\[\d+\]: function offset=0x([0-9a-f]+), encoding\[\d+\]=0x([0-9a-f]+)`)

// TestEntriesLLVMObjdump compares every second-level entry (address and
// encoding, regular and compressed pages) with llvm-objdump --unwind-info.
func TestEntriesLLVMObjdump(t *testing.T) {
	testEntries(t, symbolicCrash)
	for _, p := range []string{"../testdata/macos/x86_64/crash", "../testdata/macos/arm64/crash"} {
		if _, err := os.Stat(p); err == nil {
			testEntries(t, p)
		}
	}
}

func testEntries(t *testing.T, path string) {
	f, tab := openTable(t, path)
	if _, err := exec.LookPath("llvm-objdump"); err != nil {
		t.Skip("no llvm-objdump (Debian package llvm)")
	}
	out, err := exec.Command("llvm-objdump", "--macho", "--unwind-info", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	type ent struct {
		addr uint64
		enc  uint32
	}
	var want []ent
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// Regular pages print "encoding=0x..." without an index.
		line := regexp.MustCompile(`encoding=0x`).ReplaceAllString(sc.Text(), "encoding[0]=0x")
		if m := objdumpEntry.FindStringSubmatch(line); m != nil {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			e, _ := strconv.ParseUint(m[2], 16, 32)
			want = append(want, ent{f.TextAddr + a, uint32(e)})
		}
	}
	got := tab.Entries()
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%s: %d entries, llvm-objdump %d", path, len(got), len(want))
	}
	for i, w := range want {
		if got[i].Start != w.addr || got[i].Encoding != w.enc {
			t.Errorf("%s entry %d: %#x %#08x, llvm-objdump %#x %#08x", path, i, got[i].Start, got[i].Encoding, w.addr, w.enc)
		}
	}
}

// TestFind checks ranges, personalities and LSDAs of symbolic's fixture
// against llvm-objdump's listing (the first LSDA descriptor: function
// 0xd60, LSDA 0xe36c; personality[1] at 0x11010).
func TestFind(t *testing.T) {
	f, tab := openTable(t, symbolicCrash)
	e, ok := tab.Find(f.TextAddr + 0xd70)
	if !ok || e.Start != f.TextAddr+0xd60 || e.End != f.TextAddr+0xda0 {
		t.Fatalf("Find(0xd70) = %+v, %v", e, ok)
	}
	if e.LSDA != f.TextAddr+0xe36c || e.Personality != f.TextAddr+0x11010 {
		t.Errorf("LSDA %#x personality %#x", e.LSDA, e.Personality)
	}
	last := tab.Entries()[len(tab.Entries())-1]
	if last.End != f.TextAddr+0xdca4 { // the sentinel: __stubs' start
		t.Errorf("last entry ends at %#x", last.End)
	}
	if _, ok := tab.Find(f.TextAddr + 0xdca4); ok {
		t.Errorf("found an entry past the sentinel")
	}
}
