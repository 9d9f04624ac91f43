package walker_test

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// noCaller is an Arch that never finds a caller.
type noCaller struct{}

func (noCaller) Caller(*walker.Walker, bool) *walker.Frame { return nil }

func TestTrustNames(t *testing.T) {
	for _, c := range []struct {
		t           walker.Trust
		desc, short string
	}{
		{walker.TrustContext, "given as instruction pointer in context", "context"},
		{walker.TrustCFI, "call frame info", "cfi"},
		{walker.TrustCFIScan, "call frame info with scanning", "cfi_scan"},
		{walker.TrustFramePointer, "previous frame's frame pointer", "frame_pointer"},
		{walker.TrustScan, "stack scanning", "scan"},
		{walker.TrustLeaf, "simulating a return from leaf function", "leaf"},
		{walker.TrustInline, "inline record", "inline"},
		{walker.TrustPrewalked, "recovered by external stack walker", "prewalked"},
		{walker.TrustNone, "unknown", "none"},
	} {
		if c.t.String() != c.desc || c.t.ShortName() != c.short {
			t.Errorf("%d: %q %q, want %q %q", c.t, c.t.String(), c.t.ShortName(), c.desc, c.short)
		}
	}
}

// Inlined calls become frames before their physical frame, innermost
// first; each shows where the next inner call was made, as Breakpad's
// resolver reports (the innermost shows the line record).
func TestInlineFrames(t *testing.T) {
	const base = 0x7f0000000000
	syms := walkertest.NewSymbols(t, map[string]string{"m": "MODULE Linux x86_64 ID m\n" +
		"FILE 0 /src/a.c\nFILE 1 /src/b.h\n" +
		"INLINE_ORIGIN 0 outer_inl\nINLINE_ORIGIN 1 inner_inl\n" +
		"FUNC 1000 100 0 caller\n" +
		"INLINE 0 10 0 0 1010 40\n" +
		"INLINE 1 20 1 1 1020 10\n" +
		"1000 10 5 0\n1010 10 11 0\n1020 10 30 1\n1030 d0 12 0\n"})
	ctx := minidump.NewContext(minidump.ArchAMD64)
	ctx.Set("rip", base+0x1025)
	env := &walker.Env{Modules: walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "m", base, 0x10000)}), Symbols: syms}
	st := walker.Walk(env, noCaller{}, ctx)
	want := []struct {
		trust    walker.Trust
		function string
		file     string
		line     int
		fbase    uint64
	}{
		{walker.TrustInline, "inner_inl", "/src/b.h", 30, base + 0x1020},
		{walker.TrustInline, "outer_inl", "/src/b.h", 20, base + 0x1010},
		{walker.TrustContext, "caller", "/src/a.c", 10, base + 0x1000},
	}
	if len(st.Frames) != len(want) {
		t.Fatalf("%d frames, want %d", len(st.Frames), len(want))
	}
	for i, w := range want {
		f := st.Frames[i]
		if f.Trust != w.trust || f.Function != w.function || f.SourceFile != w.file || f.SourceLine != w.line || f.FunctionBase != w.fbase {
			t.Errorf("frame %d: %v %q %s:%d base %#x, want %v %q %s:%d base %#x", i, f.Trust, f.Function, f.SourceFile, f.SourceLine, f.FunctionBase,
				w.trust, w.function, w.file, w.line, w.fbase)
		}
		if f.ReturnAddress() != base+0x1025 || f.SourceLineBase != base+0x1020 {
			t.Errorf("frame %d: address %#x line base %#x", i, f.ReturnAddress(), f.SourceLineBase)
		}
	}
}

// A module map keeps the first of overlapping modules and finds by address.
func TestModuleMap(t *testing.T) {
	a := walkertest.Module(0, "a", 0x1000, 0x1000)
	b := walkertest.Module(1, "b", 0x1800, 0x1000) // overlaps a: not stored
	c := walkertest.Module(2, "c", 0x3000, 0x10)
	z := walkertest.Module(3, "z", 0x5000, 0) // empty
	mm := walkertest.NewModuleMap([]*walker.Module{a, b, c, z})
	for _, tc := range []struct {
		addr uint64
		want *walker.Module
	}{{0xfff, nil}, {0x1000, a}, {0x1fff, a}, {0x2000, nil}, {0x2500, nil}, {0x300f, c}, {0x3010, nil}, {0x5000, nil}} {
		if got := mm.At(tc.addr); got != tc.want {
			t.Errorf("At(%#x) = %v, want %v", tc.addr, got, tc.want)
		}
	}
	if got := len(mm.Sorted()); got != 2 {
		t.Errorf("%d stored modules, want 2", got)
	}
}

func TestTerminate(t *testing.T) {
	for _, c := range []struct {
		ip, sp, calleeSP uint64
		first, want      bool
	}{
		{0xfff, 0x2000, 0x1000, false, true},
		{0x1000, 0x2000, 0x1000, false, false},
		{0x1000, 0x1000, 0x1000, false, true},
		{0x1000, 0x1000, 0x1000, true, false},
		{0x1000, 0x0fff, 0x1000, true, true},
	} {
		if got := walker.Terminate(c.ip, c.sp, c.calleeSP, c.first); got != c.want {
			t.Errorf("Terminate(%#x, %#x, %#x, %v) = %v", c.ip, c.sp, c.calleeSP, c.first, got)
		}
	}
}
