package pe

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// a64Reg names x register r as llvm-readobj does in packed prologs.
func a64Reg(r uint8, packed bool) string {
	if r == 30 && packed {
		return "lr"
	}
	return fmt.Sprintf("x%d", r)
}

// readobjARM64 formats a prolog code as llvm-readobj --unwind prints it
// (the text after "; " for .xdata codes; the whole line for packed data).
func readobjARM64(c ARM64Code, packed bool) string {
	pre := func(s string) string {
		if c.Writeback() {
			return fmt.Sprintf("%s, [sp, #-%d]!", s, c.Offset)
		}
		return fmt.Sprintf("%s, [sp, #%d]", s, c.Offset)
	}
	switch c.Op {
	case A64AllocS, A64AllocM, A64AllocL:
		if packed {
			return fmt.Sprintf("sub sp, sp, #%d", c.Offset)
		}
		return fmt.Sprintf("sub sp, #%d", c.Offset)
	case A64SaveR19R20X, A64SaveRegP, A64SaveRegPX:
		return pre(fmt.Sprintf("stp x%d, %s", c.Reg, a64Reg(c.Reg+1, packed)))
	case A64SaveFPLR, A64SaveFPLRX:
		if packed {
			return pre("stp x29, lr")
		}
		return pre("stp x29, x30")
	case A64SaveReg, A64SaveRegX:
		return pre("str " + a64Reg(c.Reg, packed))
	case A64SaveLRPair:
		return pre(fmt.Sprintf("stp x%d, lr", c.Reg))
	case A64SaveFRegP, A64SaveFRegPX:
		return pre(fmt.Sprintf("stp d%d, d%d", c.Reg, c.Reg+1))
	case A64SaveFReg, A64SaveFRegX:
		return pre(fmt.Sprintf("str d%d", c.Reg))
	case A64SetFP:
		if packed {
			return "mov x29, sp"
		}
		return "mov fp, sp"
	case A64AddFP:
		return fmt.Sprintf("add fp, sp, #%d", c.Offset)
	case A64Nop:
		return "nop"
	case A64SaveNext:
		return "save next"
	}
	return fmt.Sprintf("op %d", c.Op)
}

// readobjARM64Prologs reads each RuntimeFunction's function address and
// prolog lines from llvm-readobj --unwind output.
func readobjARM64Prologs(t *testing.T, path string) []string {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []string
	in := false
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(l, "Function: "):
			out = append(out, l)
		case l == "Prologue [":
			in = true
		case l == "]" || strings.HasPrefix(l, "end"), strings.HasSuffix(l, "; end"):
			in = false
		case in:
			if i := strings.Index(l, "; "); i >= 0 {
				l = l[i+2:]
			}
			out = append(out, l)
		}
	}
	return out
}

// TestARM64UnwindMatchesReadobj: the prologs of real ARM64 DLLs built
// here with clang and lld (scripts/gen-testdata/windows), packed and
// .xdata, decode as llvm-readobj --unwind prints them.
func TestARM64UnwindMatchesReadobj(t *testing.T) {
	for _, name := range []string{"unwind-O0", "unwind-O2", "unwind-fp"} {
		name := name
		t.Run(name, func(t *testing.T) {
			f, err := Open("../testdata/windows/arm64/" + name + ".dll")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fns, err := f.ARM64Functions()
			if err != nil || len(fns) == 0 {
				t.Fatalf("%d functions, %v", len(fns), err)
			}
			var got []string
			for _, fn := range fns {
				u, err := f.ARM64UnwindOf(fn)
				if err != nil {
					t.Fatalf("%#x: %v", fn.Begin, err)
				}
				got = append(got, fmt.Sprintf("Function: 0x%X", f.ImageBase+uint64(fn.Begin)))
				for _, c := range u.Prolog {
					got = append(got, readobjARM64(c, u.Packed))
				}
			}
			want := readobjARM64Prologs(t, "../testdata/windows/oracle/arm64-"+name+".dll.readobj-unwind.txt")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("prologs (-readobj +ours):\n%s", diff)
			}
		})
	}
}

// TestResolveSaveNext: unwind-fp.dll's function at 0x1180 saves x19-x26
// with one stp and three save_next (llvm-objdump -d shows stp x21, x22,
// [sp, #16], stp x23, x24, [sp, #32], stp x25, x26, [sp, #48]).
func TestResolveSaveNext(t *testing.T) {
	f, err := Open("../testdata/windows/arm64/unwind-fp.dll")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fns, _ := f.ARM64Functions()
	for _, fn := range fns {
		if fn.Begin != 0x1180 {
			continue
		}
		u, err := f.ARM64UnwindOf(fn)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range ResolveSaveNext(u.Prolog) {
			got = append(got, readobjARM64(c, false))
		}
		want := []string{"stp x25, x26, [sp, #48]", "stp x23, x24, [sp, #32]", "stp x21, x22, [sp, #16]", "stp x19, x20, [sp, #-96]!"}
		if len(got) < 4 || !cmp.Equal(got[len(got)-4:], want) {
			t.Errorf("resolved %q, want it to end %q", got, want)
		}
		return
	}
	t.Fatal("no function at 0x1180")
}
