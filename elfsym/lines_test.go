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

// TestLinesMatchAddr2line compares Lookup with binutils addr2line at every
// instruction of prog's .text (testdata/prog.addr2line.txt, made by
// gen.sh), for prog and for its separate debug file.
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
		lines, err := NewLines(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			addr, err := strconv.ParseUint(fields[0], 0, 64)
			if err != nil {
				t.Fatal(err)
			}
			file, line, ok := lines.Lookup(addr)
			got := "??:?"
			if ok {
				got = file + ":" + strconv.Itoa(line)
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
		if n < 100 {
			t.Fatalf("only %d addresses", n)
		}
	}
}

func TestLinesWithoutDWARF(t *testing.T) {
	f, err := elf.NewFile(bytes.NewReader(testFile(t, "prog-stripped")))
	if err != nil {
		t.Fatal(err)
	}
	lines, err := NewLines(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := lines.Lookup(0x1070); ok {
		t.Error("a stripped file has lines")
	}
}
