package retaddr_test

import (
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/internal/retaddr"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// TestScanSkipsSignalFrame: a word inside a signal frame the walk
// validated (walker.NoteSignalFrame) is a saved register, not a return
// address: the scan passes over it to the next candidate, in both modes
// (Breakpad's never validates a signal frame, so there it never applies).
func TestScanSkipsSignalFrame(t *testing.T) {
	const (
		base  = 0x10000
		stack = 0x80000
	)
	syms := walkertest.NewSymbols(t, map[string]string{"prog": "MODULE Linux x86_64 ID prog\n" +
		"FUNC 1000 100 0 callee\nFUNC 2000 100 0 interrupted\nFUNC 3000 100 0 caller\n"})
	data := make([]byte, 0x40)
	binary.LittleEndian.PutUint64(data, base+0x2010)     // the saved rip of an interrupted frame
	binary.LittleEndian.PutUint64(data[8:], base+0x3010) // a return address
	arch := retaddr.Arch{WordSize: 8, CallOffset: 1, PC: minidump.AMD64RIP, SP: minidump.AMD64RSP}
	for _, mode := range []walker.Mode{walker.Extended, walker.Breakpad} {
		for _, noted := range []bool{false, true} {
			w := walker.NewWalker(&walker.Env{
				OS: "linux", Mode: mode, Symbols: syms,
				Memory:  &walkertest.Memory{Base: stack, Data: data},
				Modules: walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "prog", base, 0x10000)}),
			})
			ctx := minidump.NewContext(minidump.ArchAMD64)
			ctx.SetIndex(minidump.AMD64RIP, base+0x1010)
			ctx.SetIndex(minidump.AMD64RSP, stack)
			w.Push(walker.ContextFrame(ctx))
			if noted {
				w.NoteSignalFrame(stack, stack+8)
			}
			var checks retaddr.Checks
			if mode != walker.Breakpad {
				checks = retaddr.CheckSymbols
			}
			loc, ra, ok := retaddr.Scan(w, w.Last(), stack, retaddr.ScanWords(w, w.Last()), ^uint64(0), arch, checks)
			wantLoc, wantRA := uint64(stack), uint64(base+0x2010)
			if noted {
				wantLoc, wantRA = stack+8, base+0x3010
			}
			if !ok || loc != wantLoc || ra != wantRA {
				t.Errorf("%s, signal frame noted %v: scan took %#x = %#x (%v), want %#x = %#x", mode, noted, loc, ra, ok, wantLoc, wantRA)
			}
		}
	}
}
