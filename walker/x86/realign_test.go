package x86_test

import (
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/x86"
)

// TestRealignedFrameWithoutCFI: i386 main realigned its stack through ecx
// (GCC's DRAP: `lea 4(%esp),%ecx; and $-16,%esp; push -4(%ecx); push
// %ebp; mov %esp,%ebp; push %ecx`), and the symbol file has no CFI rows
// for it. The record at ebp holds a copy of the return address; the saved
// ecx below it is the caller's esp, with the original return address
// right below that. The caller gets that esp (rule realigned_frame); the
// frame record alone would give ebp+8. Breakpad mode follows the record.
func TestRealignedFrameWithoutCFI(t *testing.T) {
	const (
		stack   = 0x80000000
		mainRA  = mod1 + 0x1020 // in main, after its call of leaf
		startRA = mod1 + 0x2040 // in __libc_start_call_main
		ebp     = stack + 0x40  // main's record (aligned down)
		cfa     = stack + 0x70  // main's caller's esp
		savedBP = stack + 0x100
	)
	syms := "MODULE Linux x86 ID module1\nFUNC 1000 100 0 main\nFUNC 2000 100 0 __libc_start_call_main\nFUNC 3000 100 0 leaf\n" +
		"STACK CFI INIT 3000 100 .cfa: $esp 4 + .ra: .cfa -4 + ^\n"
	walk := func(mode walker.Mode) []*walker.Frame {
		data := make([]byte, 0x200)
		put := func(at, v uint32) { binary.LittleEndian.PutUint32(data[at-stack:], v) }
		put(stack, mainRA)  // leaf's return address
		put(ebp-4, cfa)     // saved ecx
		put(ebp, savedBP)   // the record: saved ebp
		put(ebp+4, startRA) // and the copy of the return address
		put(cfa-4, startRA) // the original return address
		ctx := minidump.NewContext(minidump.ArchX86)
		ctx.SetIndex(minidump.X86EIP, mod1+0x3010)
		ctx.SetIndex(minidump.X86ESP, stack)
		ctx.SetIndex(minidump.X86EBP, ebp)
		env := &walker.Env{
			OS: "linux", Memory: &walkertest.Memory{Base: stack, Data: data}, Mode: mode,
			Modules: walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "module1", mod1, 0x10000)}),
			Symbols: walkertest.NewSymbols(t, map[string]string{"module1": syms}),
		}
		return walker.Walk(env, x86.New(), ctx).Frames
	}
	for _, c := range []struct {
		mode    walker.Mode
		rule    walker.Rule
		wantESP uint64
	}{{walker.Extended, walker.RuleRealigned, cfa}, {walker.Breakpad, walker.RuleFrameRecord, ebp + 8}} {
		fs := walk(c.mode)
		if len(fs) < 3 {
			t.Fatalf("%v: %d frames, want leaf, main, __libc_start_call_main", c.mode, len(fs))
		}
		f := fs[2]
		esp, _ := f.Context.SP()
		if f.Function != "__libc_start_call_main" || f.Rule != c.rule || esp != c.wantESP {
			t.Errorf("%v: frame 2 %q rule %v esp %#x, want rule %v esp %#x", c.mode, f.Function, f.Rule, esp, c.rule, c.wantESP)
		}
	}
}
