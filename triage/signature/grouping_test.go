package signature

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

// stack is a crash in the application's parser, reached through libc's
// strlen and an abort, with an event loop at its base.
func stack() []triage.Frame {
	return []triage.Frame{
		{Module: "libc.so.6", Function: "raise", Offset: "0x10"},
		{Module: "libc.so.6", Function: "strlen", Offset: "0x20"},
		{Module: "app", Function: "parser::Token::text(int) const", File: "/src/app/parser/token.cc", Line: 12, Offset: "0x30"},
		{Module: "app", Function: "parser::Parser::next()", File: "/src/app/parser/parser.cc", Line: 40, Offset: "0x40"},
		{Module: "libvendor.so", Function: "vendor::dispatch(void*)", File: `C:\vendor\src\Dispatch.cpp`, Line: 7, Offset: "0x50"},
		{Module: "app", Function: "app::MainLoop::run()", File: "/src/app/main.cc", Line: 99, Offset: "0x60"},
		{Module: "libc.so.6", Offset: "0x70"},
	}
}

// Each case states the signature the rules must give, worked out by hand
// from the rules' documented meaning (docs/batch.md, "Grouping rules").
func TestGroupingSignatures(t *testing.T) {
	tests := []struct {
		name, rules, want string
	}{
		{"no rules: Socorro's lists alone", "", "strlen | parser::Token::text"},
		{"-group by module drops libc", "module:libc.so.* -group", "parser::Token::text"},
		{"+app keeps the app's frames only", "module:app +app", "parser::Token::text"},
		{"+app by path, case-insensitive glob", "path:/SRC/app/**.cc +app\nfunction:parser::Token::* -group", "parser::Parser::next"},
		{"^-group removes the frames above", "function:parser::Parser::next ^-group", "parser::Parser::next"},
		{"v-group with the frame: only the top", "function:strlen v-group", "strlen"},
		{"+prefix chains frames, max-frames bounds", "family:native +prefix max-frames=3", "strlen | parser::Token::text | parser::Parser::next"},
		{"+group revives an irrelevant frame", "function:raise +group", "raise"},
		{"+sentinel starts the signature", "function:app::MainLoop::run +sentinel", "app::MainLoop::run"},
		{"negation: all but the app out", "!module:app -group", "parser::Token::text"},
		{"negated value, backslash path, relative **/", "path:**/vendor/src/*.cpp +app\nmodule:!libvendor.so -app", "vendor::dispatch"},
		{"app matcher reads earlier rules", "module:app +app\napp:no -group\napp:yes max-frames=2 +prefix", "parser::Token::text | parser::Parser::next"},
		{"quoted value with a space", `function:"operator new" -group` + "\nfunction:strlen -group", "parser::Token::text"},
		{"family other never matches", "family:javascript -group", "strlen | parser::Token::text"},
		{"everything out: the top frame names it", "family:native -group", "raise"},
	}
	for _, tc := range tests {
		g, err := ParseGrouping([]byte(tc.rules), "test")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := DefaultRules().WithGrouping(g).Generate(stack(), true); got != tc.want {
			t.Errorf("%s:\n%s\n got %q\nwant %q", tc.name, tc.rules, got, tc.want)
		}
	}
}

// WithGrouping leaves the rules it copies alone.
func TestWithGroupingCopies(t *testing.T) {
	r := DefaultRules()
	g, err := ParseGrouping([]byte("module:libc.so.6 -group"), "t")
	if err != nil {
		t.Fatal(err)
	}
	_ = r.WithGrouping(g)
	if got := r.Generate(stack(), true); got != "strlen | parser::Token::text" {
		t.Errorf("original rules changed: %q", got)
	}
}

func TestGroupingErrors(t *testing.T) {
	tests := []struct {
		rules string
		line  int
		want  string
	}{
		{"# ok\nfunction:a -group\nfunction:b", 3, "no action"},
		{"-group", 1, "no matcher"},
		{"\n\ncategory:ui -group", 3, "unknown matcher"},
		{"function:a +frobnicate", 1, "unknown flag"},
		{"function:a jump", 1, "unknown action"},
		{"function:a -group module:b", 1, "after an action"},
		{"function:a max-frames=x", 1, "max-frames=x"},
		{"[ function:a ] | function:b -group", 1, "not supported"},
		{`function:"a -group`, 1, "closing quote"},
		{`function:"a"b -group`, 1, "after the closing quote"},
		{"app:maybe -app", 1, "want yes or no"},
		{"family:rust -app", 1, "family:rust"},
		{"function: -group", 1, "empty value"},
	}
	for _, tc := range tests {
		_, err := ParseGrouping([]byte(tc.rules), "rules.grouping")
		var re *RuleError
		if !errors.As(err, &re) || re.Line != tc.line || re.File != "rules.grouping" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want line %d and %q", tc.rules, err, tc.line, tc.want)
		}
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		glob, s string
		path    bool
		want    bool
	}{
		{"std::*", "std::vector<T>::push_back", false, true},
		{"std::*", "mystd::x", false, false},
		{"*::operator[]", "std::vector<T>::operator[]", false, true},
		{"a?c", "abc", false, true},
		{"/src/*.c", "/src/x/y.c", true, false},
		{"/src/**.c", "/src/x/y.c", true, true},
		{"**/Y.C", "/src/x/y.c", true, true},
		{`C:\src\*`, "c:/SRC/a", true, true},
		{"kernel32.dll", "KERNEL32.DLL", true, true},
		{"日本*", "日本語", false, true},
	}
	for _, tc := range tests {
		re, err := globRegexp(tc.glob, tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := matchPath(re, tc.s); got != tc.want {
			t.Errorf("glob %q (path %v) on %q: %v, want %v", tc.glob, tc.path, tc.s, got, tc.want)
		}
	}
}

// The example of docs/batch.md's "Grouping rules" parses.
func TestGroupingDocExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "batch.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "## Grouping rules")
	_, block, ok2 := strings.Cut(sec, "```\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 || strings.Count(block, "\n") < 5 {
		t.Fatalf("no example in docs/batch.md's Grouping rules")
	}
	if _, err := ParseGrouping([]byte(block), "docs/batch.md"); err != nil {
		t.Error(err)
	}
}
