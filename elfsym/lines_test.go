package elfsym

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestLinesMatchAddr2line compares the source lines internal/dwarfsyms
// reads (those dumpsyms writes as line records; DebugInfo.Lookup) with
// binutils addr2line at every instruction of prog's .text
// (testdata/prog.addr2line.txt, made by gen.sh), for prog and for its
// separate debug file. Addresses outside every function (allcfi.S has no
// DWARF functions; gaps in prog.c) have lines for addr2line but none in a
// .sym file, whose line records are functions' (as Breakpad's): those are
// counted apart.
func TestLinesMatchAddr2line(t *testing.T) {
	data, err := os.ReadFile("testdata/prog.addr2line.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"prog", "prog.debug"} {
		f, err := elf.NewFile(bytes.NewReader(testFile(t, name)))
		if err != nil {
			t.Fatal(err)
		}
		lines, err := NewDebugInfo(f)
		if err != nil {
			t.Fatal(err)
		}
		n, outside := 0, 0
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			addr, err := strconv.ParseUint(fields[0], 0, 64)
			if err != nil {
				t.Fatal(err)
			}
			fr, ok := lines.Lookup(addr)
			got := "??:?"
			if ok && fr.File != "" {
				got = fr.File + ":" + strconv.Itoa(fr.Line)
			}
			if !ok {
				outside++
				continue
			}
			want := fields[1]
			// addr2line names a file without a line ("crtstuff.c:?")
			// from STT_FILE symbols where no line table covers addr.
			if strings.HasSuffix(want, ":?") || strings.HasSuffix(want, ":0") {
				want = "??:?"
			}
			if got != want {
				t.Errorf("%s: %#x: %s, addr2line %s", name, addr, got, want)
			}
			n++
		}
		if n < 60 {
			t.Fatalf("%d addresses compared, %d outside every function", n, outside)
		}
	}
}

func TestLinesWithoutDWARF(t *testing.T) {
	f, err := elf.NewFile(bytes.NewReader(testFile(t, "prog-stripped")))
	if err != nil {
		t.Fatal(err)
	}
	lines, err := NewDebugInfo(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := lines.Lookup(0x1070); ok {
		t.Error("a stripped file has lines")
	}
}
