package amd64_test

import (
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/amd64"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

const (
	fuzzMod1 = 0x400000000
	fuzzMod2 = 0x500000000
)

// fuzzSyms drive the STACK CFI and PUBLIC paths.
var fuzzSyms = map[string]string{
	"module1": "MODULE Linux x86_64 ID1 module1\nFUNC 1000 100 0 a\n" +
		"STACK CFI INIT 1000 100 .cfa: $rsp 8 + .ra: .cfa 8 - ^\nSTACK CFI 1010 .cfa: $rbp 16 + $rbp: .cfa 16 - ^\n" +
		"PUBLIC 2000 0 p\n",
	"module2": "MODULE Linux x86_64 ID2 module2\nFUNC 1000 100 0 b\n",
}

// FuzzWalk walks arbitrary stacks from arbitrary registers, on Linux and
// Windows rules, with and without the dump's code: no panic, the frame cap
// holds, the stack pointer never goes down between frames, and each input
// keeps to the fuzz budget.
func FuzzWalk(f *testing.F) {
	seed := make([]byte, 0, 1024)
	for i := range 64 {
		seed = binary.LittleEndian.AppendUint64(seed, fuzzMod1+0x1000+16*uint64(i))
	}
	f.Add(byte(0), seed)
	f.Add(byte(1), seed)
	f.Add(byte(2), seed)
	f.Add(byte(0x40), seed)
	f.Fuzz(func(t *testing.T, mode byte, data []byte) {
		fuzzbudget.Default.Run(t, func() {
			const stack = 0x7fff00000000
			ctx := minidump.NewContext(minidump.ArchAMD64)
			for i := range ctx.NumRegs() {
				var v uint64
				if off := i * 8; off+8 <= len(data) {
					v = binary.LittleEndian.Uint64(data[off:])
				}
				ctx.SetIndex(i, v)
			}
			ctx.SetSP(stack + uint64(mode>>2)*8)
			env := &walker.Env{
				Memory:    &walkertest.Memory{Base: stack, Data: data},
				Modules:   walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "module1", fuzzMod1, 0x10000), walkertest.Module(1, "module2", fuzzMod2, 0x10000)}),
				Symbols:   walkertest.NewSymbols(t, fuzzSyms),
				MaxFrames: 1000,
				OS:        "linux",
			}
			if mode&1 != 0 {
				env.OS = "windows"
			}
			if mode&2 != 0 {
				env.Code = env.Memory
			}
			if mode&0x40 != 0 { // a memory map with nothing executable in it
				env.Executable = func(uint64) bool { return false }
			}
			walkertest.CheckWalkInvariants(t, walker.Walk(env, amd64.New(), ctx), env.MaxFrames)
		})
	})
}
