package arm_test

import (
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/arm"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// sigCase is a synthetic Linux ARM signal frame: a handler (frame 0, a
// leaf by its CFI) returns through lr into a trampoline at restorer; at
// sp the kernel's sigframe or rt_sigframe (arch/arm/kernel/signal.c):
// [siginfo (128 bytes, rt only),] ucontext: uc_flags, uc_link, uc_stack,
// sigcontext (trap_no, error_code, oldmask, r0-r15, cpsr, fault_address),
// uc_sigmask (128 bytes), uc_regspace.
type sigCase struct {
	rt       bool
	restorer uint64 // the trampoline (Thumb bit for Thumb code)
	syms     string // module1's symbols beyond the handler's and spin's
	code     []byte // the trampoline's code in the dump, if any
	cpsr     uint32
	ucFlags  uint32
	magic    uint32 // uc_regspace's first word
	oldmask  uint32 // the sigcontext's (uc_sigmask's first word is 0)
	link     uint32 // uc_link
	breakpad bool
}

const (
	sigHandler = mod1 + 0x1010
	sigSpin    = mod1 + 0x3010 // the interrupted instruction (Thumb code)
	sigOuterRA = mod1 + 0x4021
	sigSavedSP = stack + 0x400
)

func (c sigCase) walk(t *testing.T) []*walker.Frame {
	t.Helper()
	data := make([]byte, 0x800)
	put := func(off uint64, v uint32) { binary.LittleEndian.PutUint32(data[off:], v) }
	uc := uint64(0)
	if c.rt {
		put(0, 14) // si_signo: SIGALRM
		uc = 128
	}
	put(uc, c.ucFlags)
	put(uc+4, c.link)
	sc := uc + 20
	put(sc+8, c.oldmask)
	for i := uint64(0); i < 16; i++ {
		put(sc+12+4*i, 0x100+uint32(i)) // r0-r15
	}
	put(sc+12+4*13, sigSavedSP)
	put(sc+12+4*14, 0x1234) // lr: junk, spin has made calls
	put(sc+12+4*15, sigSpin)
	put(sc+12+4*16, c.cpsr)
	put(uc+232, c.magic)
	put(sigSavedSP-stack+4, sigOuterRA) // spin's frame: .cfa sp 8, .ra at cfa-4
	ctx := minidump.NewContext(minidump.ArchARM)
	ctx.SetIndex(minidump.ARMPC, sigHandler)
	ctx.SetIndex(minidump.ARMSP, stack)
	ctx.SetIndex(minidump.ARMLR, c.restorer)
	ctx.SetIndex(minidump.ARMFP, 0)
	ctx.SetIndex(minidump.ARMR7, 0)
	syms := "MODULE Linux arm ID1 module1\n" +
		"FUNC 1000 100 0 handler\nFUNC 3000 100 0 spin\nFUNC 4000 100 0 outer\n" + c.syms +
		"STACK CFI INIT 1000 100 .cfa: sp 0 + .ra: lr\n" +
		"STACK CFI INIT 3000 100 .cfa: sp 8 + .ra: .cfa -4 + ^\n"
	env := &walker.Env{
		OS: "linux", Memory: &walkertest.Memory{Base: stack, Data: data}, Mode: walkertest.Mode(c.breakpad),
		Modules: walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "module1", mod1, 0x10000)}),
		Symbols: walkertest.NewSymbols(t, map[string]string{"module1": syms}),
	}
	if c.code != nil {
		env.Code = &walkertest.Memory{Base: c.restorer &^ 1, Data: c.code}
	}
	return walker.Walk(env, arm.New(), ctx).Frames
}

// TestSignalFrame: the trampoline is known by glibc's restorer symbol at
// exactly its pc (dump_syms gives Thumb functions with the Thumb bit), by
// its code in ARM, Thumb or Thumb-2 form, or outside every module by a
// frame that validates; the trampoline frame is looked up at its first
// instruction, the interrupted frame gets every saved register, trust
// signal, and its exact pc as instruction; spin's CFI then finds outer.
func TestSignalFrame(t *testing.T) {
	const userThumb, kernelMagic, vfpMagic = 0x60000030, 0x5ac3c35a, 0x56465001
	le32 := func(ws ...uint32) []byte {
		b := make([]byte, 4*len(ws))
		for i, w := range ws {
			binary.LittleEndian.PutUint32(b[4*i:], w)
		}
		return b
	}
	le16 := func(hs ...uint16) []byte {
		b := make([]byte, 2*len(hs))
		for i, h := range hs {
			binary.LittleEndian.PutUint16(b[2*i:], h)
		}
		return b
	}
	const restorer = mod1 + 0x2000
	for _, tc := range []struct {
		name string
		c    sigCase
		fn   string // the trampoline frame's function
	}{
		{"sigframe by symbol", sigCase{restorer: restorer | 1, syms: "PUBLIC 2001 0 __default_sa_restorer\n",
			cpsr: userThumb, ucFlags: kernelMagic, magic: vfpMagic}, "__default_sa_restorer"},
		{"sigframe by symbol, qemu's uc_flags", sigCase{restorer: restorer | 1, syms: "PUBLIC 2001 0 __default_sa_restorer\n",
			cpsr: userThumb, magic: vfpMagic}, "__default_sa_restorer"},
		{"rt_sigframe by symbol", sigCase{rt: true, restorer: restorer | 1, syms: "PUBLIC 2001 0 __default_rt_sa_restorer\n",
			cpsr: userThumb, magic: vfpMagic}, "__default_rt_sa_restorer"},
		{"rt_sigframe by Thumb-2 code", sigCase{rt: true, restorer: restorer | 1, code: le16(0xf04f, 0x07ad, 0xdf00, 0xbf00),
			cpsr: userThumb, magic: 0}, ""},
		{"sigframe by Thumb code", sigCase{restorer: restorer | 1, code: le16(0x2777, 0xdf00),
			cpsr: userThumb, ucFlags: kernelMagic, magic: vfpMagic}, ""},
		{"sigframe by ARM code", sigCase{restorer: restorer, code: le32(0xe3a07077, 0xef900077),
			cpsr: userThumb, ucFlags: kernelMagic, magic: vfpMagic}, ""},
		{"rt_sigframe outside every module", sigCase{rt: true, restorer: 0xffff0501,
			cpsr: userThumb, magic: vfpMagic}, ""},
		{"sigframe outside every module", sigCase{restorer: 0xffff0500,
			cpsr: userThumb, ucFlags: kernelMagic, magic: vfpMagic}, ""},
		// Without the trampoline's code, its pc inside a function with no
		// CFI: the layout decides (walker/arm layoutValid).
		{"sigframe inside a function without CFI, no code", sigCase{restorer: restorer | 1, syms: "PUBLIC 1f01 0 sigaction\n",
			cpsr: userThumb, ucFlags: kernelMagic, magic: vfpMagic}, "sigaction"},
		{"rt_sigframe inside a function without CFI, no code", sigCase{rt: true, restorer: restorer | 1, syms: "PUBLIC 1f01 0 sigaction\n",
			cpsr: userThumb, magic: vfpMagic}, "sigaction"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := tc.c.walk(t)
			if len(fs) != 4 {
				for i, f := range fs {
					t.Logf("frame %d: %#x %s %v", i, f.Instruction, f.Function, f.Trust)
				}
				t.Fatalf("%d frames, want handler, trampoline, spin, outer", len(fs))
			}
			if fs[1].Instruction != tc.c.restorer || fs[1].Function != tc.fn {
				t.Errorf("trampoline frame: %q at %#x, want %q at %#x", fs[1].Function, fs[1].Instruction, tc.fn, tc.c.restorer)
			}
			f := fs[2]
			r4, _ := f.Context.Index(4)
			pc, _ := f.Context.Index(minidump.ARMPC)
			sp, _ := f.Context.Index(minidump.ARMSP)
			if f.Trust != walker.TrustSignal || f.Rule != walker.RuleSignal || f.Instruction != sigSpin || f.Function != "spin" ||
				pc != sigSpin || sp != sigSavedSP || r4 != 0x104 {
				t.Errorf("interrupted frame: trust %v rule %v instruction %#x %q pc %#x sp %#x r4 %#x", f.Trust, f.Rule, f.Instruction, f.Function, pc, sp, r4)
			}
			if pc, _ := fs[3].Context.Index(minidump.ARMPC); pc != sigOuterRA || fs[3].Function != "outer" {
				t.Errorf("frame 3: pc %#x %q, want %#x outer (spin's CFI from the saved sp)", pc, fs[3].Function, uint64(sigOuterRA))
			}
		})
	}
	for _, tc := range []struct {
		name string
		c    sigCase
	}{
		{"kernel-mode cpsr (the walk ends at the trampoline)", sigCase{restorer: restorer | 1, syms: "PUBLIC 2001 0 __default_sa_restorer\n",
			cpsr: 0x60000033, ucFlags: kernelMagic, magic: vfpMagic}},
		{"unknown uc_regspace record", sigCase{restorer: restorer | 1, syms: "PUBLIC 2001 0 __default_sa_restorer\n",
			cpsr: userThumb, ucFlags: kernelMagic, magic: 0x12345678}},
		{"sigframe with other uc_flags", sigCase{restorer: 0xffff0500, cpsr: userThumb, ucFlags: 7, magic: vfpMagic}},
		{"no trampoline in a module (its code shows none)", sigCase{restorer: restorer | 1, syms: "PUBLIC 2001 0 other\n",
			code: le16(0xbf00, 0xbf00, 0xbf00, 0xbf00), cpsr: userThumb, ucFlags: kernelMagic, magic: vfpMagic}},
		{"Breakpad mode", sigCase{restorer: restorer | 1, syms: "PUBLIC 2001 0 __default_sa_restorer\n",
			cpsr: userThumb, ucFlags: kernelMagic, magic: vfpMagic, breakpad: true}},
		// Near misses of the layout without code: one word off each.
		{"no code: oldmask unlike uc_sigmask", sigCase{restorer: restorer | 1, syms: "PUBLIC 1f01 0 sigaction\n",
			cpsr: userThumb, ucFlags: kernelMagic, magic: vfpMagic, oldmask: 0x4000}},
		{"no code: rt_sigframe with uc_link set", sigCase{rt: true, restorer: restorer | 1, syms: "PUBLIC 1f01 0 sigaction\n",
			cpsr: userThumb, magic: vfpMagic, link: stack + 0x100}},
		{"no code: rt_sigframe with uc_flags set", sigCase{rt: true, restorer: restorer | 1, syms: "PUBLIC 1f01 0 sigaction\n",
			cpsr: userThumb, ucFlags: 1, magic: vfpMagic}},
		{"no code: the pc has CFI", sigCase{restorer: restorer | 1, syms: "PUBLIC 1f01 0 sigaction\nSTACK CFI INIT 1f00 200 .cfa: sp 0 + .ra: lr\n",
			cpsr: userThumb, ucFlags: kernelMagic, magic: vfpMagic}},
		{"no code: Breakpad mode", sigCase{restorer: restorer | 1, syms: "PUBLIC 1f01 0 sigaction\n",
			cpsr: userThumb, ucFlags: kernelMagic, magic: vfpMagic, breakpad: true}},
	} {
		fs := tc.c.walk(t)
		if tc.c.cpsr != userThumb && len(fs) != 2 {
			t.Errorf("%s: %d frames, want the walk to end at the trampoline", tc.name, len(fs))
		}
		for _, f := range fs {
			if f.Trust == walker.TrustSignal {
				t.Errorf("%s: a signal frame at %#x", tc.name, f.Instruction)
			}
		}
	}
}
