package processor

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// fuzzSymbols answers every module with one symbol file holding FUNC,
// PUBLIC, STACK CFI and STACK WIN records at small addresses, so that
// hostile dumps also drive the CFI and STACK WIN paths.
type fuzzSymbols struct{ f *symfile.File }

func (s fuzzSymbols) Symbols(symfile.ModuleKey) (*symfile.File, error) { return s.f, nil }

const fuzzSym = "MODULE Linux x86_64 ID fuzz\n" +
	"FUNC 0 100 8 f\n10 10 1 0\nPUBLIC 200 4 p\n" +
	"STACK CFI INIT 0 80 .cfa: $rsp 8 + .ra: .cfa 8 - ^\nSTACK CFI 10 .cfa: $rbp 16 + $rbp: .cfa 16 - ^\n" +
	"STACK CFI INIT 80 80 .cfa: $esp 4 + .ra: .cfa 4 - ^ $ebp: .cfa 8 - ^\n" +
	"STACK WIN 4 100 80 0 0 8 4 4 0 1 $T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + =\n" +
	"STACK WIN 0 180 80 0 0 8 4 10 0 0 1\n"

func FuzzProcess(f *testing.F) {
	// Seeds: small real dumps of the shared corpus and a synthetic one.
	if root, err := corpus.RepoRoot(); err == nil {
		dir := filepath.Join(root, "..", "shared", "corpus")
		for _, pattern := range []string{"breakpad/dumps/*.dmp", "breakpad-generated/dumps/*.dmp"} {
			paths, _ := filepath.Glob(filepath.Join(dir, pattern))
			for _, p := range paths {
				if b, err := os.ReadFile(p); err == nil && len(b) <= 64<<10 {
					f.Add(b)
				}
			}
		}
	}
	b := synth.New(minidump.ArchX86, synth.Windows)
	b.AddModule("a.exe", 0x400000, 0x1000)
	ctx := minidump.NewContext(minidump.ArchX86)
	ctx.Set("eip", 0x400110)
	ctx.Set("esp", 0x10000)
	ctx.Set("ebp", 0x10010)
	b.AddThread(1, ctx, 0x10000, bytes.Repeat([]byte{0x10, 0x01, 0x40, 0x00}, 64))
	if data, err := b.Bytes(); err == nil {
		f.Add(data)
	}
	sf, err := symfile.NewFile([]byte(fuzzSym), "fuzz.sym")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for _, sup := range []symfile.Supplier{nil, fuzzSymbols{sf}} {
			st, err := Process(d, sup, Options{MaxFrames: 4096, Workers: 1})
			if err != nil {
				continue
			}
			for _, th := range st.Threads {
				if len(th.Frames) > 4097*2 {
					t.Fatalf("%d frames past the cap", len(th.Frames))
				}
			}
		}
	})
}
