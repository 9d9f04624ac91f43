package minidump_test

import (
	"bytes"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

func hostileModules(t testing.TB, n int) []minidump.Module {
	t.Helper()
	data, err := hostile.ModuleList(n)
	if err != nil {
		t.Fatal(err)
	}
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	mods, err := f.Modules()
	if err != nil {
		t.Fatal(err)
	}
	return mods
}

// TestManyModulesDescending: a list of 20k modules in descending address
// order is stored whole, ascending; Breakpad's own rules refuse it (2048
// modules at most).
func TestManyModulesDescending(t *testing.T) {
	const n = 20000
	mods := hostileModules(t, n)
	ranges := minidump.TruncatedModuleRanges(mods)
	if len(ranges) != n {
		t.Fatalf("%d ranges, want %d", len(ranges), n)
	}
	for i, r := range ranges {
		if r.Index != n-1-i || r.Start != mods[r.Index].Base {
			t.Fatalf("range %d: %+v", i, r)
		}
	}
	if _, err := minidump.BreakpadModuleRanges(mods, minidump.PlatformLinux); err == nil {
		t.Error("Breakpad's rules accepted 20k modules")
	}
}

// BenchmarkTruncatedModuleRanges stores n modules given in descending
// address order (docs/limits.md).
func BenchmarkTruncatedModuleRanges(b *testing.B) {
	mods := hostileModules(b, 80_000)
	for b.Loop() {
		minidump.TruncatedModuleRanges(mods)
	}
}
