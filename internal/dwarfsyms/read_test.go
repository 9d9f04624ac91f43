package dwarfsyms

import (
	"bytes"
	"debug/elf"
	"errors"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// readFile reads a testdata ELF file as Google's npm dump_syms -d does.
func readFile(t *testing.T, path string) (map[string][]*Func, *Data) {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(corpus.ReadZstd(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string][]*Func{}
	d, err := Read(f, Options{Inlines: true, BreakpadRanges: true, NoLexicalBlocks: true}, func(fn *Func) bool {
		byName[fn.Name] = append(byName[fn.Name], fn)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return byName, d
}

// TestReadCxx checks functions, lines and inlines of the amd64 C++ test
// program against Google's dump_syms -d output for it (the values below
// are its records: FUNC, line, INLINE with INLINE_ORIGIN and FILE names).
func TestReadCxx(t *testing.T) {
	funcs, d := readFile(t, "../../dumpsyms/testdata/amd64-cxx.zst")
	const src = "/src/src/shapes.cc"
	for _, tc := range []struct {
		name       string
		addr, size uint64
	}{
		{"geo::Circle::area() const", 0x1620, 0x16},
		{"geo::Circle::label() const", 0x1880, 0x8},
		{"checked(int)", 0x1810, 0x30},
		{"c_entry", 0x1840, 0x38}, // extern "C": DW_AT_name, no linkage name
	} {
		fns := funcs[tc.name]
		if len(fns) == 0 {
			t.Errorf("%s: not read", tc.name)
			continue
		}
		if r := fns[0].Ranges; len(r) != 1 || r[0] != (Range{tc.addr, tc.size}) {
			t.Errorf("%s: ranges %x, want [{%#x %#x}]", tc.name, r, tc.addr, tc.size)
		}
	}
	// Two ~Circle() (the complete and the deleting destructor, one name).
	if n := len(funcs["geo::Circle::~Circle()"]); n != 2 {
		t.Errorf("%d geo::Circle::~Circle(), want 2", n)
	}
	// main is split hot/cold (DW_AT_ranges): Google's reader drops it.
	if len(funcs["main"]) != 0 {
		t.Errorf("main read with BreakpadRanges")
	}
	checked := funcs["checked(int)"][0]
	wantLines := []struct {
		addr, size uint64
		line       int32
	}{{0x1810, 4, 96}, {0x1814, 3, 100}, {0x1817, 9, 101}, {0x1820, 4, 95}, {0x1824, 9, 97}, {0x182d, 0xe, 97}, {0x183b, 5, 98}}
	if len(checked.Lines) != len(wantLines) {
		t.Fatalf("checked(int): %d lines, want %d", len(checked.Lines), len(wantLines))
	}
	for i, w := range wantLines {
		l := checked.Lines[i]
		if l.Addr != w.addr || l.Size != w.size || l.Number != w.line || d.Files[l.File] != src {
			t.Errorf("checked(int) line %d: %#x %#x %d %s, want %#x %#x %d %s", i, l.Addr, l.Size, l.Number, d.Files[l.File], w.addr, w.size, w.line, src)
		}
	}
	// c_entry: hidden() inlined at line 103 of shapes.cc.
	ce := funcs["c_entry"][0]
	if len(ce.Inlines) == 0 || ce.Inlines[0].Origin.Name != "hidden" || ce.Inlines[0].CallLine != 103 ||
		d.Files[ce.Inlines[0].CallFile] != src || ce.Inlines[0].Ranges[0] != (Range{0x1840, 0x33}) {
		t.Errorf("c_entry's first inline: %+v", ce.Inlines)
	}
	// ~vector(): inlines five deep; the deepest, at stl_construct.h:151,
	// is ~unique_ptr() over 19b8..19c6.
	vec := funcs["std::vector<std::unique_ptr<geo::Shape, std::default_delete<geo::Shape> >, std::allocator<std::unique_ptr<geo::Shape, std::default_delete<geo::Shape> > > >::~vector()"]
	if len(vec) == 0 {
		t.Fatal("~vector() not read")
	}
	in := vec[0].Inlines[1]
	for depth := 0; depth < 4; depth++ {
		if len(in.Children) == 0 {
			t.Fatalf("~vector(): inline chain ends at depth %d", depth)
		}
		in = in.Children[0]
	}
	if in.Level != 4 || in.CallLine != 151 || d.Files[in.CallFile] != "/usr/include/c++/12/bits/stl_construct.h" ||
		in.Origin.Name != "std::unique_ptr<geo::Shape, std::default_delete<geo::Shape> >::~unique_ptr()" ||
		in.Ranges[0] != (Range{0x19b8, 0xe}) {
		t.Errorf("~vector()'s deepest inline: %+v %q", in, in.Origin.Name)
	}
}

// TestReadDefaultRanges: without BreakpadRanges, main's hot and cold parts
// are read, sorted as Breakpad sorts them (the lower .cold part first).
func TestReadDefaultRanges(t *testing.T) {
	f, err := elf.NewFile(bytes.NewReader(corpus.ReadZstd(t, "../../dumpsyms/testdata/amd64-cxx.zst")))
	if err != nil {
		t.Fatal(err)
	}
	var main *Func
	if _, err := Read(f, Options{}, func(fn *Func) bool {
		if fn.Name == "main" {
			main = fn
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if main == nil || len(main.Ranges) != 2 || main.Ranges[0].Addr > main.Ranges[1].Addr || len(main.Lines) == 0 {
		t.Fatalf("main: %+v", main)
	}
}

func TestReadNoDWARF(t *testing.T) {
	f, err := elf.NewFile(bytes.NewReader(corpus.ReadZstd(t, "../../elfcfi/testdata/amd64-eh.zst")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(f, Options{}, func(*Func) bool { return true }); !errors.Is(err, ErrNoDWARF) {
		t.Errorf("err %v, want ErrNoDWARF", err)
	}
}

// TestReadBadSections: truncated or corrupt sections give a *FormatError.
func TestReadBadSections(t *testing.T) {
	good := sectionsOf(t, "../../elfcfi/testdata/x86-df.zst")
	for name, mutate := range map[string]func(s *Sections){
		"info cut":        func(s *Sections) { s.Info = s.Info[:len(s.Info)/2] },
		"info LEB128 run": func(s *Sections) { s.Info = append(s.Info[:20:20], bytes.Repeat([]byte{0x80}, 64)...) },
		"abbrev huge":     func(s *Sections) { s.Abbrev = append([]byte{1, 0x11, 1}, bytes.Repeat([]byte{3, 8}, 300)...) },
	} {
		s := *good
		mutate(&s)
		_, err := ReadSections(&s, Options{Inlines: true}, func(*Func) bool { return true })
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: err %v (%T), want *FormatError", name, err, err)
		}
	}
}

// TestReadBadLineProgram: a line program that does not parse leaves its
// unit's functions without lines, the functions still read.
func TestReadBadLineProgram(t *testing.T) {
	s := *sectionsOf(t, "../../elfcfi/testdata/x86-df.zst")
	s.Line = s.Line[:40]
	n := 0
	if _, err := ReadSections(&s, Options{}, func(fn *Func) bool {
		n++
		if len(fn.Lines) != 0 {
			t.Errorf("%s has lines", fn.Name)
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Error("no functions")
	}
}
