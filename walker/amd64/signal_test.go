package amd64_test

import (
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/amd64"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// TestSignalFrame: a handler returns into __restore_rt; above it lies the
// rt_sigframe's ucontext (uc_flags, uc_link, uc_stack, then the
// sigcontext: r8-r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags,
// cs/gs/fs/ss), per the kernel's uapi headers. The trampoline frame is
// looked up at its first byte; the interrupted frame gets every saved
// register, trust signal, and its exact rip as instruction. A saved cs
// that is no user code selector, or Breakpad mode, gives no such frame.
func TestSignalFrame(t *testing.T) {
	const (
		handler  = mod1Base + 0x1010
		restorer = mod1Base + 0x2000
		spin     = mod1Base + 0x3010
		outerRA  = mod1Base + 0x4020
		savedRSP = codeStack + 0x400
	)
	cfi := " .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"
	syms := "MODULE Linux x86_64 ID1 module1\n" +
		"FUNC 1000 100 0 handler\nPUBLIC 2000 0 __restore_rt\nFUNC 3000 100 0 spin\nFUNC 4000 100 0 outer\n" +
		"STACK CFI INIT 1000 100" + cfi + "STACK CFI INIT 3000 100" + cfi
	walk := func(cs uint64, mode walker.Mode) []*walker.Frame {
		data := make([]byte, 0x800)
		put := func(off, v uint64) { binary.LittleEndian.PutUint64(data[off:], v) }
		put(0, restorer)
		sc := uint64(8 + 40) // the ucontext starts where the handler's return address was popped
		for i := uint64(0); i < 15; i++ {
			put(sc+8*i, 0x1000+i) // r8 ... rcx
		}
		put(sc+8*15, savedRSP)
		put(sc+8*16, spin)
		put(sc+8*17, 0x246)
		put(sc+8*18, cs)
		put(savedRSP-codeStack, outerRA)
		ctx := minidump.NewContext(minidump.ArchAMD64)
		ctx.SetIndex(minidump.AMD64RIP, handler)
		ctx.SetIndex(minidump.AMD64RSP, codeStack)
		ctx.SetIndex(minidump.AMD64RBP, 0)
		env := &walker.Env{
			OS: "linux", Memory: &walkertest.Memory{Base: codeStack, Data: data}, Mode: mode,
			Modules: walkertest.NewModuleMap(modules()),
			Symbols: walkertest.NewSymbols(t, map[string]string{"module1": syms}),
		}
		return walker.Walk(env, amd64.New(), ctx).Frames
	}
	fs := walk(0x2b00000000000033, walker.Extended)
	if len(fs) != 4 {
		t.Fatalf("%d frames, want handler, __restore_rt, spin, outer", len(fs))
	}
	if fs[1].Function != "__restore_rt" || fs[1].Instruction != restorer {
		t.Errorf("trampoline frame: %q at %#x, want __restore_rt at %#x", fs[1].Function, fs[1].Instruction, uint64(restorer))
	}
	f := fs[2]
	rbp, _ := f.Context.Index(minidump.AMD64RBP)
	r8, _ := f.Context.Index(8)
	if f.Trust != walker.TrustSignal || f.Rule != walker.RuleSignal || f.Instruction != spin || f.Function != "spin" || rbp != 0x100a || r8 != 0x1000 {
		t.Errorf("interrupted frame: trust %v rule %v instruction %#x %q rbp %#x r8 %#x", f.Trust, f.Rule, f.Instruction, f.Function, rbp, r8)
	}
	if ra := fs[3].ReturnAddress(); ra != outerRA {
		t.Errorf("frame 3 at %#x, want %#x (spin's CFI from the saved rsp)", ra, uint64(outerRA))
	}
	for _, tc := range []struct {
		name string
		cs   uint64
		mode walker.Mode
	}{{"kernel cs", 0x10, walker.Extended}, {"Breakpad mode", 0x33, walker.Breakpad}} {
		for _, f := range walk(tc.cs, tc.mode) {
			if f.Trust == walker.TrustSignal {
				t.Errorf("%s: a signal frame at %#x", tc.name, f.Instruction)
			}
		}
	}
}
