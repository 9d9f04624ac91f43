package symfile

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A hand-written file exercising each record type and Breakpad's rules;
// every expectation below was worked out by hand from those rules.
const recordsSym = `MODULE Linux x86_64 0123ABCD0 librec.so
INFO CODE_ID CDAB2301 librec.so
INFO GENERATOR dump_syms 0.26
INFO URL https://example.com/sym
FILE 0 /src/a.c
FILE 1 /src/b.c
FILE 1 /src/ignored-duplicate.c
INLINE_ORIGIN 0 inlined_fn
INLINE_ORIGIN 1 7 old_style_origin
FUNC 1000 100 8 first
INLINE 0 12 1 0 1010 20
INLINE 1 30 1 1020 8
1000 10 10 0
1010 10 11 0
1010 8 99 1
1020 10 12 1
FUNC 1000 40 0 second_same_address
FUNC 1080 100 0 overlapping
FUNC m 2000 10 4 folded
FUNC 0 0 0 zero_size
5000 4 1 0
PUBLIC 1500 0 public_between
PUBLIC 1500 0 public_duplicate
PUBLIC m 3000 c public_folded
PUBLIC 0 0 public_at_zero
STACK CFI INIT 1000 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^
STACK CFI 1004 .cfa: $rsp 16 + $rbp: .cfa -16 + ^
STACK CFI 1004 .cfa: $rsp 24 +
STACK CFI 1008 .cfa: $rbp 16 +
STACK CFI INIT 1000 10 .cfa: $rsp 99 + .ra: .cfa -8 + ^
STACK WIN 0 1000 20 0 0 4 0 0 0 0 1
STACK WIN 4 1000 20 1 0 8 4 10 0 1 $T0 .raSearch = $eip $T0 ^ = $esp $T0 4 + =
STACK WIN 4 1000 20 2 0 8 4 10 0 1 ignored equal range
STACK WIN 0 2000 10 0 0 4 0 0 0 0 0
`

func TestRecords(t *testing.T) {
	for _, crlf := range []bool{false, true} {
		text := recordsSym
		if crlf {
			text = strings.ReplaceAll(text, "\n", "\r\n")
		}
		f, err := NewFile([]byte(text), "rec.sym")
		var ce *CorruptError
		// Breakpad counts the duplicate PUBLIC as a parse error (AddressMap::Store fails).
		if !errors.As(err, &ce) || ce.Line != 23 || len(f.Errors()) != 1 {
			t.Fatalf("crlf=%v: err = %v (errors %v), want one error at line 23", crlf, err, f.Errors())
		}
		checkRecordsInfo(t, f)
		checkRecordsLookup(t, f)
		checkRecordsCFI(t, f)
		checkRecordsStackWin(t, f)
	}
}

// checkRecordsInfo checks the INFO records of recordsSym.
func checkRecordsInfo(t *testing.T, f *File) {
	t.Helper()
	if got := f.CodeID(); got != "CDAB2301" {
		t.Errorf("CodeID = %q", got)
	}
	if v, _ := f.Info("GENERATOR"); v != "dump_syms 0.26" {
		t.Errorf("Info(GENERATOR) = %q", v)
	}
	if v, _ := f.Info("URL"); v != "https://example.com/sym" {
		t.Errorf("Info(URL) = %q", v)
	}
	if _, ok := f.Info("NOPE"); ok {
		t.Error("Info(NOPE) found")
	}
}

// checkRecordsLookup checks the FUNC, line, INLINE and PUBLIC records of
// recordsSym.
func checkRecordsLookup(t *testing.T, f *File) {
	t.Helper()
	sym := func(addr uint64) Symbol { s, _ := f.Lookup(addr); return s }
	// The first FUNC at 0x1000 wins; the overlapping one at 0x1080 is dropped too.
	s := sym(0x1015)
	if s.Name != "first" || s.Size != 0x100 || s.ParamSize != 8 {
		t.Errorf("Lookup(0x1015) = %+v", s)
	}
	// The first line record wins over the overlapping 1010 8 99 1.
	if s.File != "/src/a.c" || s.Line != 11 || s.LineBase != 0x1010 {
		t.Errorf("Lookup(0x1015) line = %s:%d base %#x", s.File, s.Line, s.LineBase)
	}
	if s.Inlines[0].Name != "inlined_fn" || s.Inlines[0].CallFile != "/src/b.c" || s.Inlines[0].CallLine != 12 || s.Inlines[0].Base != 0x1010 {
		t.Errorf("Lookup(0x1015) inline = %+v", s.Inlines)
	}
	// At 0x1024 two inlines nest: depth 1 (old form: no call file, so the
	// line record's file) inside depth 0.
	s = sym(0x1024)
	want := []InlineFrame{
		{Name: "old_style_origin", CallFile: "/src/b.c", CallLine: 30, Depth: 1, File: "/src/b.c", Line: 12, Base: 0x1020},
		{Name: "inlined_fn", CallFile: "/src/b.c", CallLine: 12, Depth: 0, File: "/src/b.c", Line: 30, Base: 0x1010},
	}
	if diff := cmp.Diff(want, s.Inlines); diff != "" {
		t.Errorf("Lookup(0x1024) inlines (-want +got):\n%s", diff)
	}
	if s = sym(0x2004); s.Name != "folded" || !s.Multiple || s.ParamSize != 4 {
		t.Errorf("Lookup(0x2004) = %+v", s)
	}
	// Beyond FUNC 1000+100: PUBLIC 1500 is above the nearest FUNC's start, so it names 0x1600.
	if s = sym(0x1600); s.Name != "public_between" || !s.IsPublic {
		t.Errorf("Lookup(0x1600) = %+v", s)
	}
	// 0x2010 is past FUNC 2000+10, which lies between PUBLIC 1500 and the address.
	if s, ok := f.Lookup(0x2010); ok {
		t.Errorf("Lookup(0x2010) = %+v, want nothing", s)
	}
	if s = sym(0x3001); s.Name != "public_folded" || !s.Multiple || s.ParamSize != 0xc {
		t.Errorf("Lookup(0x3001) = %+v", s)
	}
	if s, ok := f.Lookup(0x10); ok {
		t.Errorf("Lookup(0x10) = %+v; PUBLIC 0 and the size-0 FUNC are ignored", s)
	}
}

// checkRecordsCFI checks the STACK CFI records of recordsSym.
func checkRecordsCFI(t *testing.T, f *File) {
	t.Helper()
	// CFI: the second INIT at 0x1000 is dropped; of the two deltas at 0x1004 the last wins.
	r, ok := f.CFIRules(0x1006)
	wantR := CFIRules{CFA: "$rsp 24 +", RA: ".cfa -8 + ^"}
	if !ok || !cmp.Equal(r, wantR) {
		t.Errorf("CFIRules(0x1006) = %+v, want %+v", r, wantR)
	}
	r, _ = f.CFIRules(0x101f)
	if r.CFA != "$rbp 16 +" || len(r.Rules) != 0 {
		t.Errorf("CFIRules(0x101f) = %+v", r)
	}
	if _, ok := f.CFIRules(0x1020); ok {
		t.Error("CFIRules(0x1020) found")
	}
}

// checkRecordsStackWin checks the STACK WIN records of recordsSym.
func checkRecordsStackWin(t *testing.T, f *File) {
	t.Helper()
	// STACK WIN: type 4 preferred; the equal-range second type-4 record is refused.
	w, ok := f.StackWin(0x1010)
	if !ok || w.Type != 4 || w.PrologSize != 1 || w.ProgramString != "$T0 .raSearch = $eip $T0 ^ = $esp $T0 4 + =" ||
		w.ParameterSize != 8 || w.SavedRegisterSize != 4 || w.LocalSize != 0x10 || !w.HasProgramString {
		t.Errorf("StackWin(0x1010) = %+v", w)
	}
	w, ok = f.StackWin(0x2000)
	if !ok || w.Type != 0 || w.HasProgramString || w.AllocatesBasePointer || w.ParameterSize != 4 {
		t.Errorf("StackWin(0x2000) = %+v", w)
	}
}

// Malformed lines of each kind are reported with their line numbers and do
// not hide the good records, as Breakpad loads around them.
func TestMalformedLines(t *testing.T) {
	text := "MODULE Linux x86_64 ID m\n" +
		"FILE x a.c\n" + // 2: bad id
		"FUNC 1000 zz 0 f\n" + // 3: bad size
		"1000 4 1 0\n" + // 4: line data after a failed FUNC
		"FUNC 2000 10 0 g\n" +
		"2000 4 x 0\n" + // 6: bad line number
		"2004 4 -1 0\n" + // 7: negative line
		"PUBLIC 3000\n" + // 8: too few fields
		"STACK WIN 9 1 1 0 0 0 0 0 0 0 0\n" + // 9: type out of range
		"STACK CFI INIT 10\n" + // 10: missing size and rules
		"STACK CFI 12\n" + // 11: missing rules
		"STACK FOO 1\n" + // 12: unknown platform
		"\n" + // 13: empty lines are skipped
		"garbage\n" + // 14: not a record, and not a line record
		"PUBLIC 4000 0 ok\n"
	f, err := NewFile([]byte(text), "bad.sym")
	if err == nil {
		t.Fatal("no error")
	}
	var lines []int
	for _, e := range f.Errors() {
		lines = append(lines, e.Line)
	}
	if diff := cmp.Diff([]int{2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 14}, lines); diff != "" {
		t.Errorf("error lines (-want +got):\n%s", diff)
	}
	if s, ok := f.Lookup(0x2008); !ok || s.Name != "g" {
		t.Errorf("good FUNC lost: %+v", s)
	}
	if s, ok := f.Lookup(0x4000); !ok || s.Name != "ok" {
		t.Errorf("good PUBLIC lost: %+v", s)
	}
}

// Breakpad stops loading after more than 100 errors; so do we.
func TestTooManyErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("MODULE Linux x86_64 ID m\n")
	for range 150 {
		b.WriteString("FUNC bad\n")
	}
	b.WriteString("PUBLIC 1000 0 after_bail\n")
	f, _ := NewFile([]byte(b.String()), "many.sym")
	if n := len(f.Errors()); n != 101 {
		t.Errorf("%d errors, want 101", n)
	}
	if s, ok := f.Lookup(0x1000); ok {
		t.Errorf("record after bailing out used: %+v", s)
	}
}

// Garbage and every truncation of a real-looking file load without panic.
func TestTruncations(t *testing.T) {
	for i := range len(recordsSym) {
		f, _ := NewFile([]byte(recordsSym[:i]), "t.sym")
		for _, a := range []uint64{0x1000, 0x1015, 0x1024, 0x1600, 0x2004, 0x3001} {
			f.Lookup(a)
			f.CFIRules(a)
			f.StackWin(a)
		}
	}
	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(i*7 + i>>3)
	}
	if _, err := NewFile(bin, "bin"); err == nil {
		t.Error("binary garbage loaded without error")
	}
}

// Breakpad skips spaces after "STACK " and splits fields on runs of spaces.
func TestStackSpacing(t *testing.T) {
	f, err := NewFile([]byte("STACK  CFI  INIT  1000 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^\nSTACK  CFI 1004 .cfa: $rsp 16 +\nSTACK   WIN 4 2000 10 0 0 0 0 0 0 1 $eip =\n"), "s.sym")
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := f.CFIRules(0x1000); !ok || r.CFA != "$rsp 8 +" {
		t.Errorf("CFIRules(0x1000) = %+v, %v", r, ok)
	}
	if w, ok := f.StackWin(0x2000); !ok || w.Type != 4 {
		t.Errorf("StackWin(0x2000) = %+v, %v", w, ok)
	}
}
