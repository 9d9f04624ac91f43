package compactunwind

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRules turns encodings of each mode into rules. The expected rules
// follow the instructions each encoding stands for (compact_unwind_encoding.h):
// e.g. 0x02061409 is "push rbx; push r12; push r14; push r15" under a
// 48-byte frame, and symbolic's snapshot gives the same rules for it.
func TestRules(t *testing.T) {
	code := func(addr uint64, p []byte) error {
		if addr != 0x1000+0x0d {
			return errors.New("read elsewhere")
		}
		binary.LittleEndian.PutUint32(p, 0x38) // sub $0x38, %rsp
		return nil
	}
	for _, tc := range []struct {
		arch Arch
		enc  uint32
		want Rules
	}{
		// push rbp; mov rsp,rbp; push rbx; push r12 (slots at rbp-16, rbp-8).
		{X86_64, 0x01020000 | 2<<3 | 1, Rules{".cfa": "$rbp 16 +", ".ra": ".cfa -8 + ^", "$rbp": ".cfa -16 + ^",
			"$rbx": ".cfa -32 + ^", "$r12": ".cfa -24 + ^"}},
		{X86_64, 0x02010000, Rules{".cfa": "$rsp 8 +", ".ra": ".cfa -8 + ^"}},
		{X86_64, 0x02020400, Rules{".cfa": "$rsp 16 +", ".ra": ".cfa -8 + ^", "$rbx": ".cfa -16 + ^"}},
		// symbolic's snapshot, 0x1700: four registers, 64 bytes.
		{X86_64, 0x02081004, Rules{".cfa": "$rsp 64 +", ".ra": ".cfa -8 + ^", "$rbx": ".cfa -40 + ^",
			"$r12": ".cfa -32 + ^", "$r14": ".cfa -24 + ^", "$r15": ".cfa -16 + ^"}},
		// six registers, identity order: rbx r12 r13 r14 r15 rbp; sub
		// $0x38 read at offset 0xd, plus 7*8 for the pushes and the
		// return address.
		{X86_64, 0x030df800, Rules{".cfa": "$rsp 112 +", ".ra": ".cfa -8 + ^", "$rbx": ".cfa -56 + ^",
			"$r12": ".cfa -48 + ^", "$r13": ".cfa -40 + ^", "$r14": ".cfa -32 + ^", "$r15": ".cfa -24 + ^",
			"$rbp": ".cfa -16 + ^"}},
		// stp x20,x19,[sp,#-32]!; stp x29,x30,[sp,#16]; add x29,sp,#16
		{ARM64, 0x04000001, Rules{".cfa": "x29 16 +", ".ra": ".cfa -8 + ^", "x29": ".cfa -16 + ^",
			"x19": ".cfa -24 + ^", "x20": ".cfa -32 + ^"}},
		{ARM64, 0x02002000, Rules{".cfa": "sp 32 +", ".ra": "x30"}},
	} {
		got, err := Entry{Start: 0x1000, Encoding: tc.enc}.Rules(tc.arch, code)
		if err != nil {
			t.Errorf("%#08x: %v", tc.enc, err)
			continue
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%#08x (-want +got):\n%s", tc.enc, d)
		}
	}
	for _, tc := range []struct {
		arch Arch
		enc  uint32
		want error
	}{{X86_64, 0, ErrNoRules}, {X86_64, 0x04000018, ErrDWARF}, {ARM64, 0x03000020, ErrDWARF},
		{X86_64, 0x07000000, ErrNoRules}, {X86_64, 0x02011c00, ErrNoRules}} {
		if _, err := (Entry{Encoding: tc.enc}).Rules(tc.arch, code); !errors.Is(err, tc.want) {
			t.Errorf("%#08x: %v, want %v", tc.enc, err, tc.want)
		}
	}
}

// TestPermutation checks every permutation of every count decodes to
// distinct registers and that the encodings are a bijection.
func TestPermutation(t *testing.T) {
	sizes := map[int]uint32{1: 6, 2: 30, 3: 120, 4: 360, 5: 720, 6: 720}
	for n, total := range sizes {
		seen := map[[6]int]bool{}
		for p := uint32(0); p < total; p++ {
			regs, ok := permutation(p, n)
			if !ok || len(regs) != n {
				t.Fatalf("count %d perm %d: %v", n, p, regs)
			}
			var k [6]int
			copy(k[:], regs)
			if seen[k] {
				t.Fatalf("count %d perm %d repeats %v", n, p, regs)
			}
			seen[k] = true
		}
	}
}

// TestRowsPrologue: an x86_64 RBP frame starting with push %rbp; mov
// %rsp,%rbp (an arm64 frame with stp x29, x30, [sp, #-16]!; mov x29, sp)
// gets the rules of its first two instructions; other code the entry's
// rules at its first instruction, then the encoding's.
func TestRowsPrologue(t *testing.T) {
	prologue := []byte{0x55, 0x48, 0x89, 0xe5}
	code := func(addr uint64, p []byte) error { copy(p, prologue); return nil }
	var rows []Row
	var err error
	e := Entry{Start: 0x100, End: 0x120, Encoding: 0x01000000}
	rows, err = e.Rows(X86_64, code)
	if err != nil || len(rows) != 3 || rows[1].Addr != 0x101 || rows[2].Addr != 0x104 ||
		rows[0].Rules[".cfa"] != "$rsp 8 +" || rows[1].Rules[".cfa"] != "$rsp 16 +" || rows[2].Rules[".cfa"] != "$rbp 16 +" {
		t.Fatalf("rows %+v, %v", rows, err)
	}
	prologue = []byte{0x90, 0x55, 0x48, 0x89}
	if rows, err := e.Rows(X86_64, code); err != nil || len(rows) != 2 || rows[0].Rules[".cfa"] != "$rsp 8 +" ||
		rows[1].Addr != 0x101 || rows[1].Rules[".cfa"] != "$rbp 16 +" {
		t.Errorf("no prologue: rows %+v, %v", rows, err)
	}
	// arm64: stp x29, x30, [sp, #-16]!; mov x29, sp
	prologue = []byte{0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0x91}
	e.Encoding = 0x04000000
	rows, err = e.Rows(ARM64, code)
	if err != nil || len(rows) != 3 || rows[0].Rules[".ra"] != "x30" || rows[1].Addr != 0x104 ||
		rows[1].Rules[".cfa"] != "sp 16 +" || rows[2].Addr != 0x108 || rows[2].Rules[".cfa"] != "x29 16 +" {
		t.Errorf("arm64 frame: rows %+v, %v", rows, err)
	}
	// A frameless leaf of no stack: the entry's rules are the encoding's.
	e.Encoding = 0x02000000
	if rows, err := e.Rows(ARM64, code); err != nil || len(rows) != 1 {
		t.Errorf("arm64 leaf: rows %+v, %v", rows, err)
	}
}
