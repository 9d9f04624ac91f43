package x86_test

import (
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/x86"
)

// fuzzSyms drive the STACK WIN (both types), STACK CFI and PUBLIC paths.
var fuzzSyms = map[string]string{
	"module1": "MODULE windows x86 ID1 module1.pdb\nFUNC 1000 100 8 a\n" +
		"STACK WIN 4 1000 100 1 0 8 4 10 0 1 $T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + =\n" +
		"STACK WIN 0 1100 100 0 0 8 4 10 0 0 1\nPUBLIC 2000 4 p\n",
	"module2": "MODULE Linux x86 ID2 module2\nFUNC 1000 100 0 b\n" +
		"STACK CFI INIT 1000 100 .cfa: $esp 4 + .ra: .cfa 4 - ^\nSTACK CFI 1010 .cfa: $ebp 8 + $ebp: .cfa 8 - ^\n",
}

// FuzzWalk walks arbitrary stacks from arbitrary registers, with Breakpad's
// rules or ours, with and without the dump's code: no panic, the frame cap
// holds, the stack pointer never goes down between frames, and each input
// keeps to the fuzz budget.
func FuzzWalk(f *testing.F) {
	seed := make([]byte, 0, 512)
	for i := range 64 {
		seed = binary.LittleEndian.AppendUint32(seed, uint32(mod1+0x1000+8*i))
	}
	f.Add(byte(0), seed)
	f.Add(byte(1), seed)
	f.Add(byte(2), seed)
	f.Add(byte(0x40), seed)
	f.Fuzz(func(t *testing.T, mode byte, data []byte) {
		fuzzbudget.Default.Run(t, func() {
			const stack = 0x80000000
			ctx := minidump.NewContext(minidump.ArchX86)
			for i := range ctx.NumRegs() {
				var v uint64
				if off := i * 4; off+4 <= len(data) {
					v = uint64(binary.LittleEndian.Uint32(data[off:]))
				}
				ctx.SetIndex(i, v)
			}
			ctx.SetSP(stack + uint64(mode>>2)*4)
			env := &walker.Env{
				Memory:    &walkertest.Memory{Base: stack, Data: data},
				Modules:   walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "module1", mod1, 0x10000), walkertest.Module(1, "module2", mod2, 0x10000)}),
				Symbols:   walkertest.NewSymbols(t, fuzzSyms),
				MaxFrames: 1000,
			}
			if mode&1 == 1 {
				env.Mode = walker.Breakpad
			} else if mode&2 != 0 {
				env.Code = env.Memory
			}
			if mode&0x40 != 0 { // a memory map with nothing executable in it
				env.Executable = func(uint64) bool { return false }
			}
			walkertest.CheckWalkInvariants(t, walker.Walk(env, x86.New(), ctx), env.MaxFrames)
		})
	})
}
