package walker

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// TestCFIRegistersPackedNames holds cfiRegisters' packed-name matching to
// plain string equality: names of 0 to 10 bytes, names that share their
// first 7 bytes or their packed length byte (256 bytes apart), a name
// that is an entry's alternate name, and duplicate entries.
func TestCFIRegistersPackedNames(t *testing.T) {
	long := func(c byte, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'r'
		}
		b[n-1] = c
		return string(b)
	}
	regs := []CFIRegister{
		{Index: 0, Name: "$rax"}, {Index: 1, Name: "$rsp", Alt: ".cfa"}, {Index: 2, Name: "$rip", Alt: ".ra"},
		{Index: 3, Name: "r1234567a"}, {Index: 4, Name: "r1234567b"}, {Index: 5, Name: "x"},
		{Index: 6, Name: long('a', 3)}, {Index: 7, Name: long('a', 259)}, {Index: 8, Name: "$rax"},
		{Index: 9, Name: "sp", Alt: "r1234567"},
	}
	names := []string{"", "$rax", "$rsp", ".cfa", ".ra", "$rip", "r1234567a", "r1234567b", "r1234567c",
		"r1234567", "x", "y", long('a', 3), long('a', 259), long('b', 259), "sp", "$rsp\x00"}
	ctx := minidump.NewContext(minidump.ArchAMD64)
	for i := range regs {
		if i%3 != 1 {
			ctx.SetIndex(regs[i].Index, uint64(100+i))
		}
	}
	var c cfiRegisters
	c.setTable(regs)
	c.callee, c.vals = &ctx, make([]cfiValue, len(regs))
	want := make([]cfiValue, len(regs))
	for n, name := range names {
		v := uint64(1000 + n)
		c.SetCaller(name, v)
		for i, r := range regs { // the definition: string equality
			if r.Name == name {
				want[i].name, want[i].byName = v, true
			}
			if r.Alt != "" && r.Alt == name {
				want[i].alt, want[i].byAlt = v, true
			}
		}
		var wantV uint64
		var wantOK bool
		for i := len(regs) - 1; i >= 0; i-- {
			if regs[i].Name == name {
				if x, ok := ctx.Index(regs[i].Index); ok {
					wantV, wantOK = x, true
					break
				}
			}
		}
		if got, ok := c.Register(name); got != wantV || ok != wantOK {
			t.Errorf("Register(%q) = %d, %v; want %d, %v", name, got, ok, wantV, wantOK)
		}
	}
	for i := range regs {
		if c.vals[i] != want[i] {
			t.Errorf("after SetCaller, entry %d (%q) = %+v, want %+v", i, regs[i].Name, c.vals[i], want[i])
		}
	}
	// A table changed for another (a walker of another architecture) is
	// packed again.
	other := []CFIRegister{{Index: 0, Name: "r1234567c"}}
	c.setTable(other)
	c.vals = make([]cfiValue, 1)
	c.SetCaller("r1234567c", 7)
	if !c.vals[0].byName || c.vals[0].name != 7 {
		t.Errorf("after a new table: %+v", c.vals[0])
	}
}

type zeroMemory struct{}

func (zeroMemory) ReadMemory(_ uint64, b []byte) error { clear(b); return nil }

// BenchmarkCFIRegisters applies a typical amd64 rule set through the
// walk's register file over amd64's register table, as CallerByCFI does
// for every CFI frame.
func BenchmarkCFIRegisters(b *testing.B) {
	regs := []CFIRegister{
		{Index: 0, Name: "$rax"}, {Index: 1, Name: "$rdx"}, {Index: 2, Name: "$rcx"},
		{Index: minidump.AMD64RBX, Name: "$rbx", CalleeSaves: true}, {Index: 4, Name: "$rsi"},
		{Index: 5, Name: "$rdi"}, {Index: minidump.AMD64RBP, Name: "$rbp", CalleeSaves: true},
		{Index: minidump.AMD64RSP, Name: "$rsp", Alt: ".cfa"}, {Index: 8, Name: "$r8"}, {Index: 9, Name: "$r9"},
		{Index: 10, Name: "$r10"}, {Index: 11, Name: "$r11"},
		{Index: minidump.AMD64R12, Name: "$r12", CalleeSaves: true}, {Index: minidump.AMD64R13, Name: "$r13", CalleeSaves: true},
		{Index: minidump.AMD64R14, Name: "$r14", CalleeSaves: true}, {Index: minidump.AMD64R15, Name: "$r15", CalleeSaves: true},
		{Index: minidump.AMD64RIP, Name: "$rip", Alt: ".ra"},
	}
	rules := symfile.CFIRules{CFA: "$rsp 24 +", RA: ".cfa -8 + ^",
		Rules: []symfile.CFIRule{{Register: "$rbp", Expr: ".cfa -16 + ^"}, {Register: "$rbx", Expr: ".cfa -24 + ^"}}}
	ctx := minidump.NewContext(minidump.ArchAMD64)
	for _, r := range regs {
		ctx.SetIndex(r.Index, 0x1000)
	}
	c := cfiRegisters{callee: &ctx, vals: make([]cfiValue, len(regs))}
	var x symfile.Evaluator
	b.ReportAllocs()
	for b.Loop() {
		c.setTable(regs)
		clear(c.vals)
		if err := x.CallerRegs(&rules, &c, zeroMemory{}, 8); err != nil {
			b.Fatal(err)
		}
	}
}
