package processor

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// One fuzz target per walker architecture, through the processor: fuzzed
// registers and stack in a dump of that architecture, walked with a fuzzed
// symbol file answering its module, in both modes. Each input keeps to the
// fuzz budget (internal/testkit/fuzzbudget: 5 s, 512 MiB allocated) and the frame
// caps. The walkers' own targets (walker/x86, walker/amd64, walker/arm for
// ARM and ARM64) fuzz the walk without a dump.

func FuzzWalkX86(f *testing.F)   { fuzzArch(f, minidump.ArchX86, "x86", "$esp", "$ebp") }
func FuzzWalkAMD64(f *testing.F) { fuzzArch(f, minidump.ArchAMD64, "x86_64", "$rsp", "$rbp") }
func FuzzWalkARM(f *testing.F)   { fuzzArch(f, minidump.ArchARM, "arm", "sp", "r7") }
func FuzzWalkARM64(f *testing.F) { fuzzArch(f, minidump.ArchARM64, "arm64", "sp", "x29") }

const (
	fuzzCode  = 0x10000000 // the module's base
	fuzzStack = 0x20000000 // the stack's base
)

func fuzzArch(f *testing.F, arch minidump.Arch, cpu, sp, fp string) {
	ws := 8
	if arch == minidump.ArchX86 || arch == minidump.ArchARM {
		ws = 4
	}
	// Seed: a frame-pointer chain whose return addresses are in the module.
	var stack []byte
	for i := range 64 {
		next := uint64(fuzzStack + 2*ws*(i+1))
		ret := uint64(fuzzCode + 0x1000 + 0x40*(i%16) + 4)
		if ws == 4 {
			stack = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(stack, uint32(next)), uint32(ret))
		} else {
			stack = binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(stack, next), ret)
		}
	}
	sym := "MODULE Linux " + cpu + " 000000000000000000000000000000000 app\n" +
		"FUNC 1000 400 0 f\n1000 10 1 0\n" +
		"STACK CFI INIT 1000 200 .cfa: " + sp + " 8 + .ra: .cfa -8 + ^\n" +
		"STACK CFI 1010 .cfa: " + fp + " 16 + .ra: .cfa -8 + ^ " + fp + ": .cfa -16 + ^\n"
	f.Add(byte(0), []byte(nil), stack, []byte(sym))
	f.Add(byte(1), []byte(nil), stack, []byte(sym))
	f.Fuzz(func(t *testing.T, mode byte, regs, stack, sym []byte) {
		fuzzbudget.Default.Run(t, func() {
			ctx := minidump.NewContext(arch)
			for i := range ctx.NumRegs() {
				var v uint64
				if off := i * ws; off+ws <= len(regs) {
					v = binary.LittleEndian.Uint64(append(regs[off:off+ws:off+ws], make([]byte, 8-ws)...))
				}
				ctx.SetIndex(i, v)
			}
			if len(regs) == 0 { // the seed: in the function, at the chain's start
				ctx.SetIP(fuzzCode + 0x1010)
				ctx.SetSP(fuzzStack)
			}
			b := synth.New(arch, synth.Linux)
			b.AddThread(1, ctx, fuzzStack, stack)
			b.SetException(1, 11, 0)
			b.AddModule("/app", fuzzCode, 0x10000).SetBuildID(make([]byte, 16))
			data, err := b.Bytes()
			if err != nil {
				t.Skip(err)
			}
			d, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("synthetic dump unreadable: %v", err)
			}
			sf, _ := symfile.NewFile(sym, "fuzz.sym")
			opts := Options{MaxFrames: 1024, Workers: 1}
			if mode&1 == 1 {
				opts.Mode = walker.Breakpad
			}
			st, err := Process(d, fuzzSymbols{sf}, opts)
			if err != nil {
				t.Fatalf("process: %v", err)
			}
			th := st.Threads[0]
			// Inlined frames come on top of the physical frames the cap counts.
			if len(th.Frames) == 0 || len(th.Frames) > 2*(opts.MaxFrames+1) {
				t.Fatalf("%d frames, cap %d", len(th.Frames), opts.MaxFrames)
			}
		})
	})
}
