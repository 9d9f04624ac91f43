package arm64_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/arm64"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// sigCase is a synthetic Linux arm64 signal frame: a handler (frame 0, a
// leaf by its CFI) returns through x30 into the trampoline; at sp the
// kernel's rt_sigframe (arch/arm64/kernel/signal.c): a 128-byte siginfo,
// the ucontext with the sigcontext at 176 (fault_address, x0-x30, sp, pc,
// pstate, __reserved at 288 beginning with the FPSIMD record), and above
// it the frame record {x29, x30} of the interrupted frame, at which the
// handler's x29 points.
type sigCase struct {
	tramp    uint64
	syms     string // module1's symbols beyond handler's, spin's and outer's
	code     bool   // the trampoline's code is in the dump
	pstate   uint64
	magic    uint64 // __reserved's first record header
	signo    uint64 // the siginfo's si_signo
	link     uint64 // uc_link
	breakpad bool
}

const (
	sigHandler  = mod1 + 0x1010
	sigSpin     = mod1 + 0x3010 // the interrupted instruction
	sigOuterRA  = mod1 + 0x4004
	sigStaleLR  = mod1 + 0x5004 // the interrupted frame's x30: spin has made calls
	sigSavedSP  = stack + 0x400
	sigRecord   = stack + 0x300 // the kernel's frame record above the rt_sigframe
	sigSavedX29 = stack + 0x480
	fpsimdHead  = 0x210<<32 | 0x46508001
)

func (c sigCase) walk(t *testing.T) []*walker.Frame {
	t.Helper()
	data := make([]byte, 0x800)
	put := func(addr, v uint64) { binary.LittleEndian.PutUint64(data[addr-stack:], v) }
	put(stack, c.signo)
	put(stack+128+8, c.link)
	sc := uint64(stack + 128 + 176)
	for i := uint64(0); i < 31; i++ {
		put(sc+8+8*i, 0x100+i)
	}
	put(sc+8+8*29, sigSavedX29)
	put(sc+8+8*30, sigStaleLR)
	put(sc+256, sigSavedSP)
	put(sc+264, sigSpin)
	put(sc+272, c.pstate)
	put(sc+288, c.magic)
	put(sigRecord, sigSavedX29)
	put(sigRecord+8, sigStaleLR)
	put(sigSavedSP+8, sigOuterRA) // spin's frame: .cfa sp 16, .ra at cfa-8
	ctx := minidump.NewContext(minidump.ArchARM64)
	ctx.SetIndex(minidump.ARM64PC, sigHandler)
	ctx.SetIndex(minidump.ARM64SP, stack)
	ctx.SetIndex(minidump.ARM64LR, c.tramp)
	ctx.SetIndex(minidump.ARM64FP, sigRecord)
	syms := "MODULE Linux arm64 ID1 module1\n" +
		"FUNC 1000 100 0 handler\nFUNC 3000 100 0 spin\nFUNC 4000 100 0 outer\nFUNC 5000 100 0 stale\n" + c.syms +
		"STACK CFI INIT 1000 100 .cfa: sp 0 + .ra: x30\n" +
		"STACK CFI INIT 3000 100 .cfa: sp 16 + .ra: .cfa -8 + ^\n"
	env := &walker.Env{
		OS: "linux", Memory: &walkertest.Memory{Base: stack, Data: data}, Mode: walkertest.Mode(c.breakpad),
		Modules: walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "module1", mod1, 0x10000)}),
		Symbols: walkertest.NewSymbols(t, map[string]string{"module1": syms}),
	}
	if c.code {
		code := make([]byte, 8) // mov x8, #139; svc #0
		binary.LittleEndian.PutUint32(code, 0xd2801168)
		binary.LittleEndian.PutUint32(code[4:], 0xd4000001)
		env.Code = &walkertest.Memory{Base: c.tramp, Data: code}
	}
	return walker.Walk(env, arm64.New(), ctx).Frames
}

// TestSignalFrame: the trampoline is known by __kernel_rt_sigreturn at
// exactly its pc, by its code in the dump, or outside every module (qemu's
// trampoline page) by a frame that validates; the trampoline frame is
// looked up at its first instruction, the interrupted frame gets every
// saved register, trust signal and its exact pc as instruction; spin's CFI
// then finds outer. A frame that does not validate (pstate not EL0, no
// FPSIMD record) gives no signal frame, and then the frame record the
// kernel left above it, whose return address is the interrupted frame's
// x30, is not followed from a trampoline known by its symbol or code: the
// walk ends there. (Outside every module, with no valid frame, nothing
// says the frame is a trampoline's.)
func TestSignalFrame(t *testing.T) {
	const tramp = mod1 + 0x2000
	for _, tc := range []struct {
		name string
		c    sigCase
		fn   string
	}{
		{"by symbol", sigCase{tramp: tramp, syms: "PUBLIC 2000 0 __kernel_rt_sigreturn\n", magic: fpsimdHead}, "__kernel_rt_sigreturn"},
		{"by code", sigCase{tramp: tramp, code: true, pstate: 0x60000000, magic: fpsimdHead}, ""},
		{"outside every module", sigCase{tramp: 0x5500801000, magic: fpsimdHead}, ""},
		// No code, the pc inside a function without CFI: the layout
		// decides (layoutValid).
		{"inside a function without CFI, no code", sigCase{tramp: tramp, syms: "FUNC 1f00 200 0 sigaction\n", magic: fpsimdHead, signo: 11}, "sigaction"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := tc.c.walk(t)
			if len(fs) != 4 {
				for i, f := range fs {
					t.Logf("frame %d: %#x %s %v", i, f.Instruction, f.Function, f.Trust)
				}
				t.Fatalf("%d frames, want handler, trampoline, spin, outer", len(fs))
			}
			if fs[1].Instruction != tc.c.tramp || fs[1].Function != tc.fn {
				t.Errorf("trampoline frame: %q at %#x, want %q at %#x", fs[1].Function, fs[1].Instruction, tc.fn, tc.c.tramp)
			}
			f := fs[2]
			x19, _ := f.Context.Index(19)
			fp, _ := f.Context.Index(minidump.ARM64FP)
			lr, _ := f.Context.Index(minidump.ARM64LR)
			sp, _ := f.Context.Index(minidump.ARM64SP)
			if f.Trust != walker.TrustSignal || f.Rule != walker.RuleSignal || f.Instruction != sigSpin || f.Function != "spin" ||
				sp != sigSavedSP || x19 != 0x113 || fp != sigSavedX29 || lr != sigStaleLR {
				t.Errorf("interrupted frame: trust %v rule %v instruction %#x %q sp %#x x19 %#x x29 %#x x30 %#x",
					f.Trust, f.Rule, f.Instruction, f.Function, sp, x19, fp, lr)
			}
			if pc, _ := fs[3].Context.Index(minidump.ARM64PC); pc != sigOuterRA || fs[3].Function != "outer" {
				t.Errorf("frame 3: pc %#x %q, want %#x outer (spin's CFI from the saved sp)", pc, fs[3].Function, uint64(sigOuterRA))
			}
		})
	}
	for _, tc := range []struct {
		name string
		c    sigCase
	}{
		{"EL1 pstate", sigCase{tramp: tramp, syms: "PUBLIC 2000 0 __kernel_rt_sigreturn\n", pstate: 0x3c5, magic: fpsimdHead}},
		{"no FPSIMD record", sigCase{tramp: tramp, syms: "PUBLIC 2000 0 __kernel_rt_sigreturn\n", magic: 0x1234}},
		{"outside every module, no FPSIMD record", sigCase{tramp: 0x5500801000, magic: 0}},
		{"Breakpad mode", sigCase{tramp: tramp, syms: "PUBLIC 2000 0 __kernel_rt_sigreturn\n", magic: fpsimdHead, breakpad: true}},
		// Near misses of the layout without code.
		{"no code: no signal number", sigCase{tramp: tramp, syms: "FUNC 1f00 200 0 sigaction\n", magic: fpsimdHead}},
		{"no code: uc_link set", sigCase{tramp: tramp, syms: "FUNC 1f00 200 0 sigaction\n", magic: fpsimdHead, signo: 11, link: stack}},
		{"no code: no FPSIMD record", sigCase{tramp: tramp, syms: "FUNC 1f00 200 0 sigaction\n", magic: 0x1234, signo: 11}},
		{"no code: Breakpad mode", sigCase{tramp: tramp, syms: "FUNC 1f00 200 0 sigaction\n", magic: fpsimdHead, signo: 11, breakpad: true}},
	} {
		fs := tc.c.walk(t)
		// (A pc the layout does not prove a trampoline is walked as any
		// other: only a known trampoline ends the walk.)
		known := !tc.c.breakpad && strings.Contains(tc.c.syms, "__kernel_rt_sigreturn")
		if known && len(fs) != 2 {
			t.Errorf("%s: %d frames, want the walk to end at the trampoline", tc.name, len(fs))
		}
		for i, f := range fs {
			if f.Trust == walker.TrustSignal {
				t.Errorf("%s: a signal frame at %#x", tc.name, f.Instruction)
			}
			if known && i >= 2 && f.Function == "stale" {
				t.Errorf("%s: frame %d %#x: the kernel's frame record followed past the interrupted frame", tc.name, i, f.Instruction)
			}
		}
	}
}
