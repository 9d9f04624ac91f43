package arm_test

import (
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/arm"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/arm64"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// FuzzWalk walks arbitrary stacks with arbitrary registers on both
// architectures, in both modes (Linux and iOS rules, with and without the
// dump's code, with a memory map where nothing is executable): no panic,
// the walk ends within the frame cap with SP never decreasing between
// physical frames, and each input keeps to the fuzz budget.
func FuzzWalk(f *testing.F) {
	seed := make([]byte, 0, 512)
	for i := 0; i < 64; i++ {
		seed = binary.LittleEndian.AppendUint32(seed, uint32(mod2+0x2045+4*i))
	}
	f.Add(byte(0), seed)
	f.Add(byte(3), seed)
	f.Add(byte(0xc0), seed)
	f.Add(byte(0x81), seed)
	f.Add(byte(0x20), seed)
	f.Fuzz(func(t *testing.T, mode byte, data []byte) {
		fuzzbudget.Default.Run(t, func() {
			is64 := mode&1 == 1
			breakpad := mode&2 == 2
			a := minidump.ArchARM
			ws := 4
			if is64 {
				a, ws = minidump.ArchARM64, 8
			}
			ctx := minidump.NewContext(a)
			for i := 0; i < ctx.NumRegs(); i++ {
				var v uint64
				if off := i * ws; off+ws <= len(data) {
					if ws == 4 {
						v = uint64(binary.LittleEndian.Uint32(data[off:]))
					} else {
						v = binary.LittleEndian.Uint64(data[off:])
					}
				}
				ctx.SetIndex(i, v)
			}
			ctx.SetSP(stack + uint64(mode>>2)*uint64(ws))
			syms := map[string]string{
				"module1": "MODULE Linux arm ID1 module1\nFUNC 1000 100 0 a\nSTACK CFI INIT 1000 100 .cfa: sp 8 + .ra: .cfa -4 + ^ r7: .cfa -8 + ^ x29: .cfa -16 + ^\nSTACK CFI 1010 .cfa: r7 8 + .ra: lr\n",
				"module2": sym2,
			}
			env := &walker.Env{
				Memory:    &walkertest.Memory{Base: stack, Data: data},
				Modules:   walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "module1", mod1, 0x10000), walkertest.Module(1, "module2", mod2, 0x40000)}),
				Symbols:   walkertest.NewSymbols(t, syms),
				MaxFrames: 1000,
			}
			// High mode bits: iOS rules, and the stack as the dump's code
			// (call-site checks decode whatever it holds).
			if mode&0x40 != 0 {
				env.OS = "ios"
			}
			if mode&0x80 != 0 && !breakpad {
				env.Code = env.Memory
			}
			// A memory map with nothing executable in it: every caller pc
			// outside the modules is data (Walker.NotCode).
			if mode&0x20 != 0 {
				env.Executable = func(uint64) bool { return false }
			}
			env.Mode = walkertest.Mode(breakpad)
			env.Trace = mode&0x04 != 0 // tracing must not change the walk
			var w walker.Arch
			if is64 {
				w = arm64.New()
			} else {
				w = arm.New()
			}
			walkertest.CheckWalkInvariants(t, walker.Walk(env, w, ctx), env.MaxFrames)
		})
	})
}
