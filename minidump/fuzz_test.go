package minidump

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
)

// FuzzParse opens arbitrary bytes as a minidump and calls every accessor.
// Seeds: the shared corpus dumps when ../shared is present (small ones, to
// keep the fuzzer fast: it minimizes every new interesting input, and that
// takes minutes on 64 KiB inputs), plus synthetic dumps built in code.
func FuzzParse(f *testing.F) {
	if root, err := corpus.RepoRoot(); err == nil {
		for _, d := range []string{"corpus/breakpad/dumps", "corpus/breakpad-generated/dumps", "corpus/rust-minidump/testdata", "perf/dumps"} {
			m, _ := filepath.Glob(filepath.Join(root, "..", "shared", d, "*.dmp"))
			for _, p := range m {
				if b, err := os.ReadFile(p); err == nil && len(b) <= 16<<10 {
					f.Add(b)
				}
			}
		}
	}
	f.Add([]byte{})
	f.Add([]byte("MDMP\x93\xa7\x00\x00"))
	f.Add(synthDump(map[StreamType][]byte{StreamSystemInfo: make([]byte, 56)}, nil))
	f.Add(synthDump(map[StreamType][]byte{
		StreamThreadList:   u32s(1, 1, 0, 0, 0, 0, 0, 0x1000, 0, 16, 200, 716, 300),
		StreamMemoryList:   u32s(1, 0x1000, 0, 16, 200),
		StreamSystemInfo:   make([]byte, 56),
		StreamMemory64List: u32s(1, 0, 200, 0, 0x2000, 0, 16, 0),
		StreamException:    make([]byte, 168),
	}, make([]byte, 1200)))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Default.Run(t, func() {
			// The raw bytes as a context of every layout.
			for _, a := range []Arch{ArchX86, ArchAMD64, ArchARM, ArchARM64, ArchARM64Old, ArchUnknown} {
				if c, err := ParseContext(data, a, 0, "fuzz"); err == nil {
					_, _ = c.IP()
					_, _ = c.SP()
				}
			}
			file, err := NewFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("NewFile error is not a FormatError: %v", err)
				}
				return
			}
			exercise(file)
			// The memory-mapped path must agree on every read.
			mapped, err := newFile(byteReaderAt(data), data, int64(len(data)))
			if err != nil {
				t.Fatalf("mapped form failed where the reader form succeeded: %v", err)
			}
			exercise(mapped)
			mem, _ := file.Memory()
			mem2, _ := mapped.Memory()
			r1, r2 := mem.Regions(), mem2.Regions()
			if len(r1) != len(r2) {
				t.Fatalf("regions %d vs %d", len(r1), len(r2))
			}
			for i := range r1 {
				a, err1 := r1[i].Bytes()
				b, err2 := r2[i].Bytes()
				if (err1 == nil) != (err2 == nil) || !bytes.Equal(a, b) {
					t.Fatalf("region %d differs between reader and mapped forms", i)
				}
				if r, ok := mem.Region(r1[i].Base); !ok || r.Base != r1[i].Base {
					t.Fatalf("Region(%#x) did not find its own region", r1[i].Base)
				}
				if i > 0 && r1[i-1].End() > r1[i].Base {
					t.Fatalf("regions %d and %d overlap or are unsorted", i-1, i)
				}
				if err1 == nil {
					p := make([]byte, min(16, len(a)))
					if err := mem.ReadMemory(r1[i].Base, p); err != nil || !bytes.Equal(p, a[:len(p)]) {
						t.Fatalf("ReadMemory at region %d start: %v", i, err)
					}
				}
			}
			// Breakpad's module ranges are sorted, disjoint and inside their modules.
			if si, err := file.SystemInfo(); err == nil {
				mods, _ := file.Modules()
				ranges, err := BreakpadModuleRanges(mods, si.Platform)
				for i, r := range ranges {
					m := mods[r.Index]
					if err != nil || r.Start > r.End || r.Start < m.Base || r.End > m.End()-1 || (i > 0 && ranges[i-1].End >= r.Start) {
						t.Fatalf("bad module range %d: %+v of module %#x+%#x (err %v)", i, r, m.Base, m.Size, err)
					}
				}
			}
		})
	})
}

// BenchmarkOpen opens a corpus dump and reads the streams a stack walk needs.
func BenchmarkOpen(b *testing.B) {
	path := corpus.Shared(b, "corpus", "breakpad-generated", "stress", "dumps", "linux-amd64-node-live.dmp")
	b.ReportAllocs()
	for b.Loop() {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.SystemInfo(); err != nil {
			b.Fatal(err)
		}
		if _, err := f.Threads(); err != nil {
			b.Fatal(err)
		}
		if _, err := f.Modules(); err != nil {
			b.Fatal(err)
		}
		if _, err := f.Memory(); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
