package elfcfi

import (
	"errors"
	"testing"
)

// TestExidxUnwind runs the entries of src/exidx.S (arm-eh). The expected
// frames follow from each function's directives as the EHABI defines them:
// .save pushes registers (lowest number at the lowest address), .vsave
// pushes 8 bytes per double register, .pad and .setfp move sp and fp.
func TestExidxUnwind(t *testing.T) {
	f := openTestELF(t, "testdata/arm-eh.zst")
	tables, err := FromELF(f)
	if err != nil {
		t.Fatal(err)
	}
	const sp, fp, lr = 0x40000, 0x50000, 0x1234
	// Every stack word holds its own address plus one, so a register's
	// value shows where it was loaded from.
	mem := func(addr uint64, size int) (uint64, bool) {
		if addr < sp-0x1000 || addr > fp+0x3000 || size != 4 {
			return 0, false
		}
		return addr + 1, true
	}
	at := func(off uint64) uint32 { return uint32(sp + off + 1) }
	for _, tc := range []struct {
		fn    string
		sp    uint32         // caller's sp
		saved map[int]uint32 // caller's registers loaded from the stack
		pc    uint32         // caller's pc
		err   error
	}{
		{"ex_small", sp + 36, map[int]uint32{4: at(16), 7: at(28), 14: at(32)}, at(32), nil},
		{"ex_mask", sp + 40, map[int]uint32{0: at(4), 3: at(16), 4: at(20), 6: at(24), 9: at(28), 11: at(32), 14: at(36)}, at(36), nil},
		{"ex_bigpad", sp + 0x2008, map[int]uint32{4: at(0x2000)}, at(0x2004), nil},
		{"ex_fp", fp + 8, map[int]uint32{4: fp - 11, 7: fp + 1, 14: fp + 5}, fp + 5, nil},
		{"ex_vfp", sp + 96, map[int]uint32{4: at(88)}, at(92), nil},
		{"ex_long", sp + 396, map[int]uint32{0: at(316), 1: at(320), 4: at(360), 11: at(388)}, at(392), nil},
		{"ex_personality", sp + 16, map[int]uint32{4: at(8)}, at(12), nil},
		{"ex_cantunwind", 0, nil, 0, ErrCantUnwind},
	} {
		e, err := tables.Exidx.Find(symbolAddr(t, f, tc.fn))
		if err != nil {
			t.Fatalf("%s: %v", tc.fn, err)
		}
		var regs ARMRegs
		regs.Set(13, sp)
		regs.Set(7, fp)
		regs.Set(14, lr)
		regs.Set(5, 0x5555)
		got, err := e.Unwind(regs, mem)
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: error %v, want %v", tc.fn, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		if got.R[13] != tc.sp || got.R[15] != tc.pc {
			t.Errorf("%s: sp %#x pc %#x, want %#x %#x", tc.fn, got.R[13], got.R[15], tc.sp, tc.pc)
		}
		for r, v := range tc.saved {
			if got.R[r] != v {
				t.Errorf("%s: r%d = %#x, want %#x", tc.fn, r, got.R[r], v)
			}
		}
		if tc.fn == "ex_personality" && got.R[5] != 0x5555 {
			t.Errorf("%s: r5 %#x: a register not popped keeps its value", tc.fn, got.R[5])
		}
	}
}

// TestExidxBadOps checks truncated and spare opcodes fail cleanly.
func TestExidxBadOps(t *testing.T) {
	for _, ops := range [][]byte{{0x80}, {0xb1}, {0xb2, 0x80}, {0xb3}, {0xc6}, {0xc7}, {0xc8}, {0xc9}} {
		if _, err := DecodeExidxOps(ops); err == nil {
			t.Errorf("% x: no error", ops)
		}
	}
	regs := ARMRegs{}
	regs.Set(13, 0x1000)
	none := func(uint64, int) (uint64, bool) { return 0, false }
	for _, ops := range [][]byte{{0x9d}, {0xb4}, {0xb1, 0x10}, {0xa0}, {0x90 | 3}} {
		e := &ExidxEntry{Ops: ops}
		if _, err := e.Unwind(regs, none); err == nil {
			t.Errorf("% x: unwound", ops)
		}
	}
}
