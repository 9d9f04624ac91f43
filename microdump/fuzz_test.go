package microdump

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
)

// FuzzParse checks that no input makes Parse panic, and that what it returns
// is consistent: lookup ranges inside the modules' own, sorted and disjoint.
func FuzzParse(f *testing.F) {
	if root, err := corpus.RepoRoot(); err == nil {
		dir := filepath.Join(root, "..", "shared", "corpus", "breakpad", "microdumps")
		if ents, err := os.ReadDir(dir); err == nil {
			for _, e := range ents {
				if data, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
					f.Add(data)
				}
			}
		}
	}
	const pre = "I/google-breakpad(1): "
	f.Add([]byte(pre + beginMarker + "\n" + pre + "O A arm64 01 aarch64 v\n" + pre + "S 0 10 10 10\n" + pre +
		"S 10 00112233\n" + pre + "M 1000 0 1000 ID a\n" + pre + "M 1800 0 1000 ID b\n" + pre + "C 00\n" + pre + endMarker + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Default.Run(t, func() {
			d, err := Parse(data)
			if err != nil {
				return
			}
			var prevEnd uint64
			for i, m := range d.Modules {
				if m.LookupBase > m.LookupEnd || m.LookupBase < m.Base || m.LookupEnd != m.Base+m.Size-1 {
					t.Fatalf("module %d: lookup [%#x, %#x] outside [%#x, +%#x)", i, m.LookupBase, m.LookupEnd, m.Base, m.Size)
				}
				if i > 0 && m.LookupBase <= prevEnd {
					t.Fatalf("module %d overlaps module %d", i, i-1)
				}
				prevEnd = m.LookupEnd
				if j := d.ModuleForAddress(m.LookupBase); j != i {
					t.Fatalf("ModuleForAddress(%#x) = %d, want %d", m.LookupBase, j, i)
				}
			}
			if d.Context != nil && d.Context.NumRegs() == 0 {
				t.Fatal("context without registers")
			}
			var b [8]byte
			_ = d.Stack.ReadMemory(d.Stack.Base, b[:])
		})
	})
}
