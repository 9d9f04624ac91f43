package coreconv

// Convert itself is tested in cmd/core2md (every core of testdata/cores
// converts into a dump whose walk agrees with gdb's, and whose modules match
// those of testdata/dumps) and cmd/minidump-stackwalk (core-file input).

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
)

func TestUnionSubtract(t *testing.T) {
	u := union([]interval{{30, 40}, {0, 10}, {5, 20}, {20, 25}})
	if want := []interval{{0, 25}, {30, 40}}; !reflect.DeepEqual(u, want) {
		t.Errorf("union = %v, want %v", u, want)
	}
	for _, tc := range []struct {
		w    interval
		want []interval
	}{
		{interval{0, 50}, []interval{{25, 30}, {40, 50}}},
		{interval{26, 28}, []interval{{26, 28}}},
		{interval{2, 8}, nil},
		{interval{22, 35}, []interval{{25, 30}}},
	} {
		if got := subtract(tc.w, u); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("subtract(%v) = %v, want %v", tc.w, got, tc.want)
		}
	}
}

func TestParseModule(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want Module
	}{
		{"/usr/bin/prog", Module{Path: "/usr/bin/prog"}},
		{"/usr/bin/prog@0x400000", Module{Path: "/usr/bin/prog", Base: 0x400000, HasBase: true}},
		{"prog@5000", Module{Path: "prog", Base: 0x5000, HasBase: true}},
	} {
		got, err := ParseModule(tc.arg)
		if err != nil || got != tc.want {
			t.Errorf("ParseModule(%q) = %+v, %v; want %+v", tc.arg, got, err, tc.want)
		}
	}
	if _, err := ParseModule("prog@0xzz"); err == nil {
		t.Error("ParseModule accepted a bad base address")
	}
}

func TestDisjointChunks(t *testing.T) {
	a, b := &codeSegment{lo: 0}, &codeSegment{lo: 100}
	got := disjoint([]chunk{
		{50, 70, b},
		{0, 20, nil},
		{10, 30, nil}, // merges with the core chunk before it
		{25, 40, a},   // loses [25,30) to the core chunk
		{40, 45, a},   // touches the chunk of the same file: merges
		{41, 44, b},   // inside: dropped
		{60, 80, b},   // same file: merges
		{65, 90, nil}, // loses [65,80)
	})
	want := []chunk{{0, 30, nil}, {30, 45, a}, {50, 80, b}, {80, 90, nil}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("disjoint = %v, want %v", got, want)
	}
	cut := subtractChunks(want, []interval{{20, 35}, {85, 100}})
	if want := []chunk{{0, 20, nil}, {35, 45, a}, {50, 80, b}, {80, 85, nil}}; !reflect.DeepEqual(cut, want) {
		t.Errorf("subtractChunks = %v, want %v", cut, want)
	}
}

// A module path the core names is read only under the sysroot, however it
// is spelt and wherever its symbolic links lead; without a sysroot it is
// read as it is, and with NoDisk or a relative name not at all.
func TestDiskPathStaysInSysroot(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	mustWrite := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(filepath.Join(root, "lib", "libc.so.6"))
	mustWrite(filepath.Join(outside, "secret"))
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "lib", "escape.so")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("libc.so.6", filepath.Join(root, "lib", "libc-link.so")); err != nil {
		t.Fatal(err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	inRoot := filepath.Join(realRoot, "lib", "libc.so.6")
	for _, tc := range []struct {
		opt  Options
		name string
		want string
	}{
		{Options{Sysroot: root}, "/lib/libc.so.6", inRoot},
		{Options{Sysroot: root}, "/lib/libc-link.so", inRoot},
		{Options{Sysroot: root}, "/../../lib/libc.so.6", inRoot},
		{Options{Sysroot: root}, "/lib/escape.so", ""},
		{Options{Sysroot: root}, "/lib/missing.so", ""},
		{Options{Sysroot: root}, "lib/libc.so.6", ""},
		{Options{Sysroot: root, NoDisk: true}, "/lib/libc.so.6", ""},
		{Options{}, "/usr/lib/x.so", "/usr/lib/x.so"},
	} {
		if got := diskPath(tc.opt, tc.name); got != tc.want {
			t.Errorf("diskPath(%+v, %q) = %q, want %q", tc.opt, tc.name, got, tc.want)
		}
	}
}

// TestAboveGuard: a thread whose stack overflowed has its stack pointer in
// the guard page below its stack (no permissions, nothing stored); its
// frames are in the writable segment right above (testdata's *-overflow).
func TestAboveGuard(t *testing.T) {
	const rw, r = 6, 4
	segs := []coredump.Segment{
		{Vaddr: 0x1000, Memsz: 0x1000},                             // a guard page
		{Vaddr: 0x2000, Memsz: 0x8000, Filesz: 0x8000, Flags: rw},  // the stack above it
		{Vaddr: 0x20000, Memsz: 0x1000},                            // a guard with a gap above
		{Vaddr: 0x30000, Memsz: 0x1000},                            // a guard below read-only data
		{Vaddr: 0x31000, Memsz: 0x1000, Filesz: 0x1000, Flags: r},  //
		{Vaddr: 0x40000, Memsz: 0x1000, Flags: rw},                 // writable, not stored
		{Vaddr: 0x41000, Memsz: 0x1000, Filesz: 0x1000, Flags: rw}, //
	}
	core := &coredump.File{Segments: segs}
	for _, tc := range []struct {
		sp   uint64
		want uint64
		ok   bool
	}{
		{0x1e70, 0x2000, true},
		{0x1000, 0x2000, true},
		{0x2100, 0, false}, // in the stack itself
		{0x20800, 0, false},
		{0x30800, 0, false},
		{0x40800, 0, false},
		{0x50000, 0, false}, // unmapped
		{0x800, 0, false},
	} {
		if got, ok := aboveGuard(core, tc.sp); got != tc.want || ok != tc.ok {
			t.Errorf("aboveGuard(%#x) = %#x, %v; want %#x, %v", tc.sp, got, ok, tc.want, tc.ok)
		}
	}
}
