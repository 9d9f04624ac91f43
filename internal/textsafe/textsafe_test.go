package textsafe

import (
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"crashdemo!fp_leaf [case_fp.c : 5 + 0x0]", "crashdemo!fp_leaf [case_fp.c : 5 + 0x0]"},
		{`c:\windows\system32\ntdll.dll`, `c:\windows\system32\ntdll.dll`},
		{"std::vector<int>::~vector()", "std::vector<int>::~vector()"},
		{"日本語.dll", "日本語.dll"},
		{"evil\x1b]0;owned\x07name", `evil\x1b]0;owned\x07name`},
		{"a\nminidump-stackwalk: forged", `a\x0aminidump-stackwalk: forged`},
		{"cr\rbs\btab\tdel\x7f", `cr\x0dbs\x08tab\x09del\x7f`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
		{"c1\u009bcsi", `c1\u009bcsi`},
		{"rtl\u202eexe.txt", `rtl\u202eexe.txt`},
		{"line\u2028sep", `line\u2028sep`},
		{"", ""},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Whatever the input, the output is valid UTF-8 with no control byte, and
// printable input comes back unchanged.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred", "\xff\xfe", "a\u202eb", "tab\there"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Escape(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Escape(%q) = %q: not UTF-8", s, out)
		}
		for _, r := range out {
			if unsafeRune(r) {
				t.Fatalf("Escape(%q) = %q keeps %U", s, out, r)
			}
		}
		if !needsEscape(s, false) && out != s {
			t.Fatalf("Escape(%q) = %q changed safe text", s, out)
		}
	})
}

func BenchmarkEscapePlain(b *testing.B) {
	s := "libxul.so!mozilla::dom::ContentParent::RecvFoo [ContentParent.cpp : 1234 + 0x10]"
	for b.Loop() {
		Escape(s)
	}
}

// EscapeText keeps the lines and tabs of a text block, and escapes the rest
// as Escape does.
func TestEscapeText(t *testing.T) {
	in := "processor\t: 0\nmodel name\t: \x1b[2Jevil\r\n"
	want := "processor\t: 0\nmodel name\t: \\x1b[2Jevil\\x0d\n"
	if got := EscapeText(in); got != want {
		t.Errorf("EscapeText(%q) = %q, want %q", in, got, want)
	}
	if s := "a\tb\nc"; EscapeText(s) != s || Escape(s) != `a\x09b\x0ac` {
		t.Errorf("EscapeText(%q) = %q, Escape = %q", s, EscapeText(s), Escape(s))
	}
}
