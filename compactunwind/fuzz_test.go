package compactunwind

import (
	"errors"
	"os"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
	"github.com/minidump-stackwalk/minidump-stackwalk/machofile"
)

// FuzzParse reads arbitrary bytes as an __unwind_info section of either
// architecture and turns every entry into rules: no panic, bounded work,
// typed errors.
func FuzzParse(f *testing.F) {
	if mf, err := machofile.Open(symbolicCrash, ""); err == nil {
		if data, _, err := mf.SectionData("__TEXT", "__unwind_info"); err == nil {
			f.Add(data, false)
		}
	}
	for _, p := range []string{"../testdata/macos/arm64/crash", "../testdata/macos/x86_64/crash"} {
		if mf, err := machofile.Open(p, ""); err == nil {
			if data, _, err := mf.SectionData("__TEXT", "__unwind_info"); err == nil {
				f.Add(data, mf.Arch == "arm64")
			}
		}
	}
	if _, err := os.Stat(symbolicCrash); err != nil {
		f.Add([]byte("\x01\x00\x00\x00\x1c\x00\x00\x00\x00\x00\x00\x00\x1c\x00\x00\x00\x00\x00\x00\x00\x1c\x00\x00\x00\x00\x00\x00\x00"), false)
	}
	code := func(addr uint64, p []byte) error { return nil }
	f.Fuzz(func(t *testing.T, data []byte, arm bool) {
		arch := X86_64
		if arm {
			arch = ARM64
		}
		fuzzbudget.Default.Run(t, func() {
			tab, err := Parse(data, 0x100000000, arch)
			if err != nil {
				if !errors.As(err, new(*FormatError)) {
					t.Fatalf("untyped error %T: %v", err, err)
				}
				return
			}
			if n := len(tab.Entries()); n > len(data) {
				t.Fatalf("%d entries from %d bytes", n, len(data))
			}
			for _, e := range tab.Entries() {
				e.Rules(arch, code)
				tab.Find(e.Start)
			}
		})
	})
}
