package symfile

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

func openShared(t *testing.T, elem ...string) *File {
	t.Helper()
	p := corpus.Shared(t, elem...)
	f, err := testOpen(p)
	if err != nil {
		t.Fatalf("testOpen(%s): %v", p, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// The expectations below are those of Breakpad's
// basic_source_line_resolver_unittest.cc (TestLoadAndResolve) on the same files.
func TestResolverUnittestModule1(t *testing.T) {
	f := openShared(t, "corpus", "breakpad", "sym-only", "resolver-unittest", "module1.out")
	if got := f.CodeID(); got != "FFFFFFFF" {
		t.Errorf("CodeID = %q", got)
	}
	if got, want := f.Module(), (ModuleLine{"windows", "x86", "111111111111111111111111111111111", "module1.pdb"}); got != want {
		t.Errorf("Module = %+v", got)
	}
	check := func(addr uint64, want Symbol, wantOK bool) {
		t.Helper()
		got, ok := f.Lookup(addr)
		if ok != wantOK {
			t.Fatalf("Lookup(%#x) ok = %v", addr, ok)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Lookup(%#x) (-want +got):\n%s", addr, diff)
		}
	}
	check(0x1000, Symbol{Name: "Function1_1", Base: 0x1000, Size: 0xc, Multiple: true, File: "file1_1.cc", Line: 44, LineBase: 0x1000}, true)
	check(0x800, Symbol{}, false)
	check(0x1280, Symbol{Name: "Function1_3", Base: 0x1200, Size: 0x100, ParamSize: 8}, true)
	check(0x1380, Symbol{Name: "Function1_4", Base: 0x1300, Size: 0x100, ParamSize: 0xc}, true)
	// FUNC 2000 with size 0 is ignored; PUBLIC m 2800 names 0x2900.
	check(0x2900, Symbol{Name: "PublicSymbol", Base: 0x2800, IsPublic: true, Multiple: true}, true)
	check(0x4000, Symbol{Name: "LargeFunction", Base: 0x3000, Size: 0x7000, ParamSize: 0x42, File: "file1_3.cc", Line: 4098359, LineBase: 0x3000}, true)
	check(0x2000, Symbol{}, false) // no FUNC (size 0), no PUBLIC below

	w, ok := f.StackWin(0x1000)
	if !ok || w.Type != 4 || w.AllocatesBasePointer || w.ProgramString != "$eip 4 + ^ = $esp $ebp 8 + = $ebp $ebp ^ =" {
		t.Errorf("StackWin(0x1000) = %+v, %v", w, ok)
	}
	if w, ok := f.StackWin(0x1280); ok {
		t.Errorf("StackWin(0x1280) = %+v, want none (Breakpad falls back to the FUNC's parameter size)", w)
	}
	if w, ok := f.StackWin(0x1380); !ok || w.Type != 4 || w.ProgramString == "" {
		t.Errorf("StackWin(0x1380) = %+v, %v", w, ok)
	}
	if _, ok := f.StackWin(0x2000); ok {
		t.Error("StackWin(0x2000) found a record")
	}
	// 1100 8 and then 1100 100: the larger range encloses the first, so 0x1100 finds the inner one.
	if w, ok := f.StackWin(0x1150); !ok || w.CodeSize != 0x100 {
		t.Errorf("StackWin(0x1150) = %+v, %v; want the 1100+100 record", w, ok)
	}
	if w, ok := f.StackWin(0x1104); !ok || w.CodeSize != 8 {
		t.Errorf("StackWin(0x1104) = %+v, %v; want the inner 1100+8 record", w, ok)
	}

	// CFI: module1 covers 3d40..3dee.
	for _, a := range []uint64{0x3d3f, 0x3e9f, 0x3def} {
		if r, ok := f.CFIRules(a); ok {
			t.Errorf("CFIRules(%#x) = %+v, want none", a, r)
		}
	}
	mem := mockMemory{0x10008: 0x98ecadc3, 0x1000c: 0x878f7524, 0x10010: 0x6312f9a5, 0x10014: 0x10038, 0x10018: 0xf6438648}
	want := map[string]uint64{".cfa": 0x1001c, ".ra": 0xf6438648, "$ebp": 0x10038, "$ebx": 0x98ecadc3, "$esi": 0x878f7524, "$edi": 0x6312f9a5}
	regs := map[string]uint64{"$esp": 0x10018, "$ebp": 0x10038, "$ebx": 0x98ecadc3, "$esi": 0x878f7524, "$edi": 0x6312f9a5}
	steps := []struct {
		addr uint64
		reg  string
		val  uint64
	}{
		{0x3d40, "", 0}, {0x3d41, "$esp", 0x10014}, {0x3d43, "$ebp", 0x10014},
		{0x3d54, "$ebx", 0x6864f054}, {0x3d5a, "$esi", 0x6285f79a}, {0x3d84, "$edi", 0x64061449},
	}
	for _, s := range steps {
		if s.reg != "" {
			regs[s.reg] = s.val
		}
		rules, ok := f.CFIRules(s.addr)
		if !ok {
			t.Fatalf("CFIRules(%#x) not found", s.addr)
		}
		got, err := rules.FindCallerRegs(regs, mem, 4)
		if err != nil {
			t.Fatalf("FindCallerRegs at %#x: %v (rules %+v)", s.addr, err, rules)
		}
		// Breakpad's VerifyRegisters: .cfa and .ra present, and every
		// recovered register has the expected value (not all need be recovered).
		if _, ok := got[".cfa"]; !ok {
			t.Errorf("at %#x: no .cfa", s.addr)
		}
		if _, ok := got[".ra"]; !ok {
			t.Errorf("at %#x: no .ra", s.addr)
		}
		for k, v := range got {
			if w, ok := want[k]; !ok || w != v {
				t.Errorf("at %#x: caller %s = %#x, want %#x (present %v) (rules %+v)", s.addr, k, v, w, ok, rules)
			}
		}
	}
	// The merged rule set at 0x3d84, by hand from the INIT row and its four deltas.
	rules, _ := f.CFIRules(0x3d84)
	wantRules := CFIRules{CFA: "$ebp 8 +", RA: ".cfa 4 - ^", Rules: []CFIRule{
		{"$ebp", ".cfa 8 - ^"}, {"$ebx", ".cfa 20 - ^"}, {"$esi", ".cfa 16 - ^"}, {"$edi", ".cfa 12 - ^"}}}
	if diff := cmp.Diff(wantRules, rules); diff != "" {
		t.Errorf("CFIRules(0x3d84) (-want +got):\n%s", diff)
	}
	rules, _ = f.CFIRules(0x3d42) // INIT plus the 3d41 delta only
	if diff := cmp.Diff(CFIRules{CFA: "$esp 8 +", RA: ".cfa 4 - ^"}, rules); diff != "" {
		t.Errorf("CFIRules(0x3d42) (-want +got):\n%s", diff)
	}
}

func TestResolverUnittestModule2(t *testing.T) {
	f := openShared(t, "corpus", "breakpad", "sym-only", "resolver-unittest", "module2.out")
	got, ok := f.Lookup(0x2181)
	want := Symbol{Name: "Function2_2", Base: 0x2170, Size: 0x14, ParamSize: 4, File: "file2_2.cc", Line: 21, LineBase: 0x2180}
	if !ok || !cmp.Equal(got, want) {
		t.Errorf("Lookup(0x2181) = %+v, %v; want %+v", got, ok, want)
	}
	if w, ok := f.StackWin(0x2181); !ok || w.Type != 4 || w.PrologSize != 1 {
		t.Errorf("StackWin(0x2181) = %+v, %v", w, ok)
	}
	// PUBLIC 2160 names 0x216f: the nearest FUNC below (2000) starts before it.
	if got, _ := f.Lookup(0x216f); got.Name != "Public2_1" || !got.IsPublic {
		t.Errorf("Lookup(0x216f) = %+v, want Public2_1", got)
	}
	// 0x219f is after FUNC 2170 (ends 0x2183), which lies between PUBLIC 2160 and the address.
	if got, ok := f.Lookup(0x219f); ok {
		t.Errorf("Lookup(0x219f) = %+v, want nothing (a FUNC lies between PUBLIC and address)", got)
	}
	if got, _ := f.Lookup(0x21a0); got.Name != "Public2_2" {
		t.Errorf("Lookup(0x21a0) = %+v, want Public2_2", got)
	}
	if !f.HasFunctionAt(0x2181) || !f.HasFunctionAt(0x21a0) || f.HasFunctionAt(0x219f) {
		t.Error("HasFunctionAt disagrees with Lookup")
	}
}

// TestLoadAndResolveOldInlines / NewInlines of Breakpad's resolver unittest.
// Breakpad's frame 'main' shows the call site of the outermost inline; we
// keep the line record in Symbol and give each inline's position in File/Line.
func TestLinuxInline(t *testing.T) {
	for _, tc := range []struct {
		file             string
		mainFile         string
		fooFile, barFile string
		funcFile         string
	}{
		{"linux_inline.old.sym", "linux_inline.cpp", "linux_inline.cpp", "linux_inline.cpp", "linux_inline.cpp"},
		{"linux_inline.new.sym", "a.cpp", "b.cpp", "c.cpp", "linux_inline.cpp"},
	} {
		f := openShared(t, "corpus", "breakpad", "symbols", "linux_inline", "BBA6FA10B8AAB33D00000000000000000", tc.file)
		sym, ok := f.Lookup(0x161b6)
		if !ok || sym.Name != "main" || sym.Base != 0x15b30 || sym.LineBase != 0x161b6 || sym.Multiple {
			t.Fatalf("%s: Lookup = %+v, %v", tc.file, sym, ok)
		}
		if len(sym.Inlines) != 3 {
			t.Fatalf("%s: %d inlines, want 3: %+v", tc.file, len(sym.Inlines), sym.Inlines)
		}
		type fr struct {
			Name string
			Base uint64
			File string
			Line int
		}
		var got []fr
		for _, in := range sym.Inlines {
			got = append(got, fr{in.Name, in.Base, in.File, in.Line})
		}
		want := []fr{
			{"func()", 0x15b83, tc.funcFile, 27},
			{"bar()", 0x15b72, tc.barFile, 32},
			{"foo()", 0x15b45, tc.fooFile, 39},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: inlines (-want +got):\n%s", tc.file, diff)
		}
		outer := sym.Inlines[len(sym.Inlines)-1]
		if outer.CallFile != tc.mainFile || outer.CallLine != 42 {
			t.Errorf("%s: main's position (outermost call site) = %s:%d, want %s:42", tc.file, outer.CallFile, outer.CallLine, tc.mainFile)
		}
	}
}

// Breakpad's output for the inline_chain dump (expected/linux-amd64-inline_chain.inline.machine.txt):
// frame 0 at module offset 0x2a85 prints inl_store 17, inl_middle 22, inl_outer 28, outer_real 33, all "+ 0x0".
func TestInlineChainGenerated(t *testing.T) {
	f := openShared(t, "corpus", "breakpad-generated", "symbols-inline", "inline_chain", "1C992A6C067BC0C2653267E9F760002F0", "inline_chain.sym")
	sym, ok := f.Lookup(0x2a85)
	if !ok || sym.Name != "outer_real" || sym.LineBase != 0x2a85 {
		t.Fatalf("Lookup(0x2a85) = %+v, %v", sym, ok)
	}
	// The source path as the .sym's FILE record holds it; no file is opened.
	const src = "/srv/test/breakpad/gen/src/inline_chain.c"
	var got [][2]any
	for _, in := range sym.Inlines {
		got = append(got, [2]any{in.Name, in.Line})
		if in.File != src {
			t.Errorf("inline %s file %q", in.Name, in.File)
		}
	}
	want := [][2]any{{"inl_store", 17}, {"inl_middle", 22}, {"inl_outer", 28}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("inlines (-want +got):\n%s", diff)
	}
	if o := sym.Inlines[2]; o.CallLine != 33 || o.CallFile != src {
		t.Errorf("outer_real position = %s:%d, want 33", o.CallFile, o.CallLine)
	}
}

// rust-minidump's snapshot test_minidump_stackwalk__macos_inlines_json_pretty.snap.
func TestCrashClientInlines(t *testing.T) {
	f := openShared(t, "corpus", "rust-minidump", "testdata", "symbols", "crash-client", "509C0610949836F7B70BD88BCF03E5400", "crash-client.sym")
	const rs = "/rustc/fdca237d5194bf8a1c9b437ebd2114d1c2ba6195/library/"
	type want struct {
		addr      uint64
		name      string
		outerLine int // the frame's own line: the outermost call site, or the line record
		inlines   []string
		lines     []int
	}
	for _, w := range []want{
		{0x14cd4, "sadness_generator::raise_segfault", 133, []string{"core::ptr::write_volatile::<u8>"}, []int{1574}},
		{0x423d, "crash_client::main", 142, []string{"crash_client::real_main::{closure#1}", "crash_client::real_main"}, []int{88, 132}},
		{0x6045, "std::sys_common::backtrace::__rust_begin_short_backtrace::<fn(), ()>", 122,
			[]string{"<fn() as core::ops::function::FnOnce<()>>::call_once"}, []int{248}},
		{0x5c0b, "std::rt::lang_start::<()>::{closure#0}", 145, nil, nil},
		{0x833ed, "std::rt::lang_start_internal", 128, []string{
			"core::ops::function::impls::<impl core::ops::function::FnOnce<A> for &F>::call_once",
			"std::panicking::try::do_call", "std::panicking::try", "std::panic::catch_unwind",
			"std::rt::lang_start_internal::{{closure}}", "std::panicking::try::do_call", "std::panicking::try",
			"std::panic::catch_unwind"}, []int{280, 492, 456, 137, 128, 492, 456, 137}},
	} {
		sym, ok := f.Lookup(w.addr)
		if !ok || sym.Name != w.name || sym.IsPublic {
			t.Errorf("Lookup(%#x) = %q public=%v ok=%v, want %q", w.addr, sym.Name, sym.IsPublic, ok, w.name)
			continue
		}
		var names []string
		var lines []int
		for _, in := range sym.Inlines {
			names = append(names, in.Name)
			lines = append(lines, in.Line)
		}
		if diff := cmp.Diff(w.inlines, names); diff != "" {
			t.Errorf("%#x inline names (-want +got):\n%s", w.addr, diff)
		}
		if diff := cmp.Diff(w.lines, lines); diff != "" {
			t.Errorf("%#x inline lines (-want +got):\n%s", w.addr, diff)
		}
		outer := sym.Line
		if len(sym.Inlines) > 0 {
			outer = sym.Inlines[len(sym.Inlines)-1].CallLine
		}
		if outer != w.outerLine {
			t.Errorf("%#x frame line = %d, want %d", w.addr, outer, w.outerLine)
		}
	}
	// Frame 5 of the snapshot: "main" + 0x28 with no file: a PUBLIC (PUBLIC 43f0 0 main).
	sym, ok := f.Lookup(0x4418)
	if !ok || sym.Name != "main" || !sym.IsPublic || sym.Base != 0x43f0 || sym.File != "" {
		t.Errorf("Lookup(0x4418) = %+v, %v", sym, ok)
	}
	if in := f.function(0); in == nil {
		t.Error("no function parsed")
	}
	if in, _ := f.Lookup(0x6045); in.Inlines[0].File != rs+"core/src/ops/function.rs" {
		t.Errorf("inline file = %q", in.Inlines[0].File)
	}
}

type mockMemory map[uint64]uint32

func (m mockMemory) ReadMemory(addr uint64, p []byte) error {
	v, ok := m[addr]
	if !ok || len(p) != 4 {
		return errors.New("unmapped")
	}
	p[0], p[1], p[2], p[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	return nil
}

// TestFunctionLinesCapped: a function's line records past maxFunctionLines
// are not parsed (nor their bytes read), and the lines before the cap and
// the functions after the block still answer. A hostile block of 500 MB of
// line records cost 5 s of CPU and 676 MB (docs/limits.md).
func TestFunctionLinesCapped(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("MODULE Linux x86_64 ID m\nFILE 1 a.c\nFILE 2 b.c\nFUNC 1000 10 0 f\n1000 8 7 1\n")
	for range maxFunctionLines + 1000 {
		b.WriteString("1008 8 9 2\n")
	}
	b.WriteString("FUNC 2000 10 0 g\n2000 10 3 2\n")
	f, err := NewFile(b.Bytes(), "capped.sym")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n := len(f.function(0).lineRecs); n != maxFunctionLines {
		t.Errorf("f keeps %d line records, want the cap %d", n, maxFunctionLines)
	}
	for _, c := range []struct {
		addr uint64
		name string
		file string
		line int
	}{{0x1000, "f", "a.c", 7}, {0x1009, "f", "b.c", 9}, {0x2004, "g", "b.c", 3}} {
		s, ok := f.Lookup(c.addr)
		if !ok || s.Name != c.name || s.File != c.file || s.Line != c.line {
			t.Errorf("Lookup(%#x) = %+v, %v; want %s %s:%d", c.addr, s, ok, c.name, c.file, c.line)
		}
	}
}
