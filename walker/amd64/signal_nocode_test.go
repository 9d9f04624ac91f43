package amd64_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/amd64"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// TestSignalFrameWithoutCode: the handler returns to a pc inside a
// function without CFI (a static glibc's __restore_rt folded into
// sigaction by the symbol file) and the dump holds no code: the
// rt_sigframe is taken by its layout (uc_flags, uc_link 0, cs 0x33, ss
// 0x2b, the saved rsp above, the saved rip in a module), and refused when
// uc_link is not 0, when ss is no user selector, or in Breakpad mode.
func TestSignalFrameWithoutCode(t *testing.T) {
	const (
		handler  = mod1Base + 0x1010
		restorer = mod1Base + 0x2000
		spin     = mod1Base + 0x3010
		savedRSP = codeStack + 0x400
	)
	cfi := " .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"
	syms := "MODULE Linux x86_64 ID1 module1\n" +
		"FUNC 1000 100 0 handler\nFUNC 1f00 200 0 sigaction\nFUNC 3000 100 0 spin\n" +
		"STACK CFI INIT 1000 100" + cfi + "STACK CFI INIT 3000 100" + cfi
	walk := func(link, selectors uint64, mode walker.Mode) []*walker.Frame {
		data := make([]byte, 0x800)
		put := func(off, v uint64) { binary.LittleEndian.PutUint64(data[off:], v) }
		put(0, restorer)
		put(8, 0x7)   // uc_flags: UC_FP_XSTATE | UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS
		put(16, link) // uc_link
		sc := uint64(8 + 40)
		for i := uint64(0); i < 15; i++ {
			put(sc+8*i, 0x1000+i)
		}
		put(sc+8*15, savedRSP)
		put(sc+8*16, spin)
		put(sc+8*17, 0x246)
		put(sc+8*18, selectors)
		ctx := minidump.NewContext(minidump.ArchAMD64)
		ctx.SetIndex(minidump.AMD64RIP, handler)
		ctx.SetIndex(minidump.AMD64RSP, codeStack)
		ctx.SetIndex(minidump.AMD64RBP, 0)
		env := &walker.Env{
			OS: "linux", Memory: &walkertest.Memory{Base: codeStack, Data: data}, Mode: mode, Trace: true,
			Modules: walkertest.NewModuleMap(modules()),
			Symbols: walkertest.NewSymbols(t, map[string]string{"module1": syms}),
		}
		return walker.Walk(env, amd64.New(), ctx).Frames
	}
	fs := walk(0, 0x002b000000000033, walker.Extended)
	if len(fs) < 3 || fs[2].Rule != walker.RuleSignal || fs[2].Instruction != spin {
		for _, f := range fs {
			t.Logf("%#x %s %v %+v", f.Instruction, f.Function, f.Rule, f.Steps)
		}
		t.Fatal("want handler, the trampoline in sigaction, spin by the signal frame")
	}
	if note := fs[2].Steps[len(fs[2].Steps)-1].Note; !strings.Contains(note, "by its layout") || !strings.Contains(note, "sigaction") {
		t.Errorf("trace: %q", note)
	}
	for _, tc := range []struct {
		name            string
		link, selectors uint64
		mode            walker.Mode
	}{
		{"uc_link set", 0x7fff0000, 0x002b000000000033, walker.Extended},
		{"ss 0x18", 0, 0x0018000000000033, walker.Extended},
		{"Breakpad mode", 0, 0x002b000000000033, walker.Breakpad},
	} {
		for _, f := range walk(tc.link, tc.selectors, tc.mode) {
			if f.Trust == walker.TrustSignal {
				t.Errorf("%s: a signal frame at %#x", tc.name, f.Instruction)
			}
		}
	}
}
