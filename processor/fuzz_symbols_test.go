package processor

import (
	"bytes"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// FuzzProcessSymbols processes fuzzed dumps with a fuzzed symbol file
// answering every module (as rust-minidump's process target does): no
// panic, the frame budget holds, and each input keeps to the fuzz budget.
func FuzzProcessSymbols(f *testing.F) {
	if d, err := hostile.FrameChain(3, 50); err == nil {
		f.Add(d, []byte(fuzzSym))
		f.Add(d, []byte("MODULE Linux x86_64 ID app\nFUNC 1000 1000 0 f\n1000 10 1 0\nSTACK CFI INIT 1000 1000 .cfa: $rbp 16 + .ra: .cfa 8 - ^ $rbp: .cfa 16 - ^\n"))
	}
	if d, err := hostile.BombDump(); err == nil {
		f.Add(d, []byte("MODULE windows x86_64 "+hostile.BombDebugID+" app.pdb\nFUNC 1000 10 0 bomb\n1000 10 1 0\n"))
	}
	f.Fuzz(func(t *testing.T, dump, sym []byte) {
		fuzzbudget.Default.Run(t, func() {
			d, err := minidump.NewFile(bytes.NewReader(dump), int64(len(dump)))
			if err != nil {
				return
			}
			sf, _ := symfile.NewFile(sym, "fuzz.sym")
			const total = 4096
			st, err := Process(d, fuzzSymbols{sf}, Options{MaxFrames: 1024, MaxTotalFrames: total, Workers: 1})
			if err != nil {
				return
			}
			frames := 0
			for _, th := range st.Threads {
				frames += len(th.Frames)
			}
			// Inlined frames come on top of the physical frames the caps count.
			if frames > 2*(total+len(st.Threads)) {
				t.Fatalf("%d frames kept, budget %d", frames, total)
			}
		})
	})
}
