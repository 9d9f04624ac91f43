package dumpsyms

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
	"github.com/minidump-stackwalk/minidump-stackwalk/machofile"
)

// FuzzWriteMachO writes the .sym of hostile Mach-O files, each slice as
// the binary and as its own dSYM, seeded with testdata/macos's binaries
// and dSYMs: no panic, bounded time and memory.
func FuzzWriteMachO(f *testing.F) {
	for _, p := range []string{"../testdata/macos/x86_64/crash", "../testdata/macos/arm64/crash",
		"../testdata/macos/x86_64/crash.dSYM/Contents/Resources/DWARF/crash"} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Default.Run(t, func() {
			slices, err := machofile.Slices(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				return
			}
			for _, s := range slices {
				WriteMachO(io.Discard, s, s, "fuzz", Options{Inlines: true})
				WriteMachO(io.Discard, s, nil, "fuzz", Options{})
			}
		})
	})
}
