package elfcfi

import (
	"debug/elf"
	"encoding/binary"
	"testing"
)

// testMemory is a sparse little-endian memory of 32- or 64-bit words.
type testMemory map[uint64]uint64

func (m testMemory) read(addr uint64, size int) (uint64, bool) {
	v, ok := m[addr]
	if !ok {
		return 0, false
	}
	if size < 8 {
		v &= 1<<(8*size) - 1
	}
	return v, true
}

func symbolAddr(t *testing.T, f *elf.File, name string) uint64 {
	t.Helper()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name {
			return s.Value
		}
	}
	t.Fatalf("no symbol %s", name)
	return 0
}

func rowAt(t *testing.T, s *Section, pc uint64) Row {
	t.Helper()
	fde, err := s.Find(pc)
	if err != nil {
		t.Fatalf("Find(%#x): %v", pc, err)
	}
	row, err := fde.RowAt(pc)
	if err != nil {
		t.Fatalf("RowAt(%#x): %v", pc, err)
	}
	return row
}

// TestUnwindI386RealignedMain unwinds GCC's stack-realigning prologue of
// i386 main (x86-eh), whose CFA and saved registers are DWARF expressions.
// The frame is built by hand from the prologue objdump shows:
//
//	lea 0x4(%esp),%ecx; and $-32,%esp; push -0x4(%ecx); push %ebp;
//	mov %esp,%ebp; push %edi; push %esi; push %ebx; ...; push %ecx
//
// so at main+0x21, after "push %ecx", the caller's esp is the entry esp+4.
func TestUnwindI386RealignedMain(t *testing.T) {
	f := openTestELF(t, "testdata/x86-eh.zst")
	tables, err := FromELF(f)
	if err != nil {
		t.Fatal(err)
	}
	pc := symbolAddr(t, f, "main") + 0x21
	const (
		entry   = 0x7ff0_1234 // esp at entry: the return address is here
		aligned = entry &^ 31
		ret     = 0x0804_9abc
		ebp     = aligned - 8
	)
	mem := testMemory{
		entry: ret, aligned - 4: ret, aligned - 8: 0x1111, // saved ebp
		aligned - 12: 0x2222, aligned - 16: 0x3333, aligned - 20: 0x4444, // edi, esi, ebx
		aligned - 24: entry + 4, // ecx
	}
	regs := map[uint64]uint64{4: aligned - 24, 5: ebp, 8: pc}
	env := &ExprEnv{Reg: func(r uint64) (uint64, bool) { v, ok := regs[r]; return v, ok },
		Mem: mem.read, AddrSize: 4, Order: binary.LittleEndian}
	row := rowAt(t, tables.EHFrame, pc)
	if row.CFA.Expr == nil {
		t.Fatalf("CFA rule %+v: want an expression", row.CFA)
	}
	c, err := row.Unwind(env)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]uint64{8: ret, 5: 0x1111, 7: 0x2222, 6: 0x3333, 3: 0x4444}
	if c.CFA != entry+4 {
		t.Errorf("CFA %#x, want %#x", c.CFA, entry+4)
	}
	for r, v := range want {
		if c.Regs[r] != v {
			t.Errorf("register %d = %#x, want %#x (caller %+v)", r, c.Regs[r], v, c)
		}
	}
}

// TestUnwindAMD64PLT evaluates the PLT's CFA expression (amd64-eh): the
// CFA is rsp+8, plus 8 once the lazy-binding stub has pushed its index,
// which happens at offset 11 of each 16-byte entry (objdump: jmp *GOT;
// push $n; jmp plt0).
func TestUnwindAMD64PLT(t *testing.T) {
	f := openTestELF(t, "testdata/amd64-eh.zst")
	tables, err := FromELF(f)
	if err != nil {
		t.Fatal(err)
	}
	plt := f.Section(".plt").Addr
	const rsp = 0x7ffc_0000
	for _, tc := range []struct {
		pc, cfa uint64
	}{
		{plt + 0x10, rsp + 8},  // jmp *GOT
		{plt + 0x16, rsp + 8},  // push $n
		{plt + 0x1b, rsp + 16}, // jmp plt0
		{plt + 0x20, rsp + 8},
		{plt + 0x2b, rsp + 16},
	} {
		regs := map[uint64]uint64{7: rsp, 16: tc.pc}
		mem := testMemory{tc.cfa - 8: 0x5555_1234}
		env := &ExprEnv{Reg: func(r uint64) (uint64, bool) { v, ok := regs[r]; return v, ok },
			Mem: mem.read, AddrSize: 8, Order: binary.LittleEndian}
		row := rowAt(t, tables.EHFrame, tc.pc)
		c, err := row.Unwind(env)
		if err != nil {
			t.Fatalf("pc %#x: %v", tc.pc, err)
		}
		if c.CFA != tc.cfa || c.Regs[16] != 0x5555_1234 {
			t.Errorf("pc %#x: CFA %#x ra %#x, want %#x %#x", tc.pc, c.CFA, c.Regs[16], tc.cfa, 0x5555_1234)
		}
	}
}

// TestUnwindAllRules applies the rows of allcfi (src/allcfi.S) whose rules
// the source spells out, on each architecture's eh and debug_frame builds.
func TestUnwindAllRules(t *testing.T) {
	for _, tf := range testFiles[:8] {
		t.Run(tf.name, func(t *testing.T) {
			f := openTestELF(t, tf.binary)
			tables, err := FromELF(f)
			if err != nil {
				t.Fatal(err)
			}
			s := tables.EHFrame
			if tables.DebugFrame != nil {
				s = tables.DebugFrame
			}
			fde, err := s.Find(symbolAddr(t, f, "allcfi"))
			if err != nil {
				t.Fatal(err)
			}
			rows, err := fde.Rows()
			if err != nil {
				t.Fatal(err)
			}
			ws := uint64(4)
			if f.Class == elf.ELFCLASS64 {
				ws = 8
			}
			da := uint64(fde.CIE.DataAlign)
			regs := map[uint64]uint64{1: 0x100, 2: 0x200, 6: 0x6000, 7: 0x7000}
			mem := testMemory{0x6008: 0x9000, 0x9000 - 16: 0xaaaa, 0x9000 + 2*da: 0xbbbb}
			env := &ExprEnv{Reg: func(r uint64) (uint64, bool) { v, ok := regs[r]; return v, ok },
				Mem: mem.read, AddrSize: int(ws), Order: f.ByteOrder}
			// Row 7 (after .cfi_restore 3 and def_cfa_expression
			// "breg6 8; deref"): CFA = [r6+8]; r5 in r2, r4 undefined,
			// r1 same value.
			c, err := rows[7].Unwind(env)
			if err != nil {
				t.Fatal(err)
			}
			if c.CFA != 0x9000 || c.Regs[5] != 0x200 || c.Regs[1] != 0x100 {
				t.Errorf("row 7: %+v", c)
			}
			if _, ok := rows[7].Rule(3); ok {
				t.Errorf("row 7: r3 has a rule after .cfi_restore")
			}
			// Row 8: expression r5 = [r6+16], val_expression r7 = r6+24.
			mem[0x6010] = 0xcccc
			c, err = rows[8].Unwind(env)
			if err != nil {
				t.Fatal(err)
			}
			if c.Regs[5] != 0xcccc || c.Regs[7] != 0x6018 {
				t.Errorf("row 8: %+v", c)
			}
			// Row 9: CFA = r7 - 4*data_align (def_cfa_sf), r8 at
			// CFA + (-2)*data_align (offset_extended_sf), r4 at
			// CFA - 2*data_align (GNU_negative_offset_extended).
			c, err = rows[9].Unwind(env)
			if err != nil {
				t.Fatal(err)
			}
			cfa := 0x7000 - 4*da
			if c.CFA != mask(cfa, int(ws)) {
				t.Errorf("row 9: CFA %#x, want %#x", c.CFA, mask(cfa, int(ws)))
			}
			if r, _ := rows[9].Rule(8); r.Kind != RuleOffset || r.Offset != -2*int64(da) {
				t.Errorf("row 9: r8 rule %+v", r)
			}
			if r, _ := rows[9].Rule(4); r.Kind != RuleOffset || r.Offset != -2*int64(da) {
				t.Errorf("row 9: r4 rule %+v", r)
			}
		})
	}
}
