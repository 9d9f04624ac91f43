package signature

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

// Expected normalisations are Socorro's own test cases
// (mozilla-services/socorro, socorro/signature/tests/test_rules.py,
// test_normalize_cpp_function and test_normalize_rust_function), plus GCC's
// clone suffixes.
func TestNormalizeFunction(t *testing.T) {
	tests := []struct {
		in   string
		rust bool
		want string
	}{
		{"void nsDocumentViewer::DestroyPresShell()", false, "nsDocumentViewer::DestroyPresShell"},
		{"bool CCGraphBuilder::BuildGraph(class js::SliceBudget& const)", false, "CCGraphBuilder::BuildGraph"},
		{"f<3>(s,t,u)", false, "f<T>"},
		{"Alpha<Bravo<Charlie>, Delta>::Echo<Foxtrot>", false, "Alpha<T>::Echo<T>"},
		{"thread_start<unsigned int (__cdecl*)(void* __ptr64)>", false, "thread_start<T>"},
		{"class JSObject* DoCallback<JSObject*>(class JS::CallbackTracer*, class JSObject**, const char*)", false, "DoCallback<T>"},
		{"JSObject::allocKindForTenure const", false, "JSObject::allocKindForTenure"},
		{"mozilla::jni::GlobalRef<mozilla::jni::Object>::operator=(mozilla::jni::Ref<mozilla::jni::Object, _jobject*> const&)&", false, "mozilla::jni::GlobalRef<T>::operator="},
		{"`anonymous namespace'::foo", false, "(anonymous namespace)::foo"},
		{"(anonymous namespace)::foo", false, "(anonymous namespace)::foo"},
		{"ShutdownWorkThreads::$_52::__invoke", false, "ShutdownWorkThreads::$::__invoke"},
		{"expect_failed::h7f635057bfba806a", true, "expect_failed"},
		{"expect_failed::h7f6350::blah", true, "expect_failed::h7f6350::blah"},
		{"static void servo_arc::Arc<style::gecko_properties::ComputedValues>::drop_slow<style::gecko_properties::ComputedValues>()", true, "servo_arc::Arc<T>::drop_slow<T>"},
		{"static void core::ptr::drop_in_place<style::stylist::CascadeData>(struct style::stylist::CascadeData*)", true, "core::ptr::drop_in_place<T>"},
		// GCC clones and LLVM's names as the perf corpus has them.
		{"llvm::Value::print(llvm::raw_ostream&, bool) const", false, "llvm::Value::print"},
		{"foo(int) [clone .cold]", false, "foo"},
		{"bar [clone .isra.0] [clone .constprop.1]", false, "bar"},
		{"baz.part.0", false, "baz"},
		{"std::vector<int, std::allocator<int> >::operator[](unsigned long)", false, "std::vector<T>::operator[]"},
		{"operator new(unsigned long)", false, "operator new"},
		{"Foo::operator<<(int)", false, "Foo::operator<<"},
		{"Foo::operator()(int) const", false, "Foo::operator()"},
	}
	for _, tc := range tests {
		if got := NormalizeFunction(tc.in, tc.rust); got != tc.want {
			t.Errorf("NormalizeFunction(%q, %v) = %q, want %q", tc.in, tc.rust, got, tc.want)
		}
	}
}

func fn(name string) triage.Frame { return triage.Frame{Module: "m", Function: name, Offset: "0x10"} }

func TestGenerate(t *testing.T) {
	r := DefaultRules()
	tests := []struct {
		name   string
		frames []triage.Frame
		want   string
	}{
		{"abort and assert skipped", []triage.Frame{fn("__pthread_kill_implementation"), fn("raise"), fn("abort"),
			fn("__assert_fail_base"), fn("__assert_fail"), fn("Parser::parse(char const*)"), fn("main")}, "Parser::parse"},
		{"memcpy skipped", []triage.Frame{fn("__memmove_avx_unaligned_erms"), fn("Buffer::append(char const*, unsigned long)"), fn("main")}, "Buffer::append"},
		{"prefix kept and continued", []triage.Frame{fn("strlen"), fn("Name::set(char const*)"), fn("main")}, "strlen | Name::set"},
		{"windows dispatch", []triage.Frame{fn("KiUserExceptionDispatcher"), fn("RaiseException"), fn("_CxxThrowException"), fn("Widget::Paint()")}, "Widget::Paint"},
		{"module offset", []triage.Frame{{Module: "libfoo.so", Offset: "0x1a2b", Trust: "context"}, fn("caller")}, "libfoo.so@0x1a2b"},
		{"file and line", []triage.Frame{{Module: "libfoo.so", File: "/src/a/b.c", Line: 12, Offset: "0x10"}}, "b.c#12"},
		{"no module skipped", []triage.Frame{{Offset: "0xdead"}, fn("caller")}, "caller"},
		{"all irrelevant", []triage.Frame{fn("abort"), fn("raise")}, "abort"},
		{"dll trimmed and merged", []triage.Frame{{Module: "ntdll.dll", Offset: "0x1"}, {Module: "ntdll.dll", Offset: "0x2"}, fn("Foo::Bar()")}, "ntdll.dll | Foo::Bar"},
		{"sentinel", []triage.Frame{fn("Foo::Bad()"), fn("_purecall"), fn("Caller::Go()")}, "_purecall"},
		{"no frames", nil, EmptyNoFrames},
	}
	for _, tc := range tests {
		if got := r.Generate(tc.frames, true); got != tc.want {
			t.Errorf("%s: Generate = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := r.Generate(nil, false); got != EmptyNoThread {
		t.Errorf("no thread: %q, want %q", got, EmptyNoThread)
	}
}

func TestMaxLengthAndFrames(t *testing.T) {
	r, err := Parse([]byte("max_frames 2\nmax_length 20\n[prefix]\nf\n"), "test")
	if err != nil {
		t.Fatal(err)
	}
	got := r.Generate([]triage.Frame{fn("f1"), fn("f2"), fn("f3")}, true)
	if got != "f1 | f2" {
		t.Errorf("max_frames 2: %q, want %q", got, "f1 | f2")
	}
	got = r.Generate([]triage.Frame{fn("ffffffffff"), fn("ffffffffffff"), fn("x")}, true)
	if len(got) != 20 || !strings.HasSuffix(got, "...") {
		t.Errorf("max_length 20: %q (%d bytes)", got, len(got))
	}
}

func TestReplacedRules(t *testing.T) {
	r, err := Parse([]byte("[irrelevant]\nParser::\n"), "mine.txt")
	if err != nil {
		t.Fatal(err)
	}
	// abort is relevant under these rules; Parser:: frames are not.
	got := r.Generate([]triage.Frame{fn("Parser::parse()"), fn("abort"), fn("main")}, true)
	if got != "abort" {
		t.Errorf("replaced rules: %q, want abort", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[irrelevant]\nfoo(\n", "bad.txt:2:"},
		{"[nosuch]\n", "bad.txt:1: unknown section"},
		{"max_frames -1\n", "bad.txt:1: max_frames"},
		{"colour blue\n", "bad.txt:1:"},
	} {
		_, err := Parse([]byte(tc.text), "bad.txt")
		var re *RuleError
		if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error starting %q", tc.text, err, tc.want)
		}
	}
}

// The embedded rules parse with every line checked, and DefaultRules,
// which skips those checks, makes the same rules.
func TestDefaultRulesParse(t *testing.T) {
	checked, err := Parse(DefaultRulesText(), "rules.txt")
	if err != nil {
		t.Fatal(err)
	}
	d := DefaultRules()
	if d.MaxFrames != checked.MaxFrames || d.MaxLength != checked.MaxLength {
		t.Errorf("DefaultRules: max_frames %d, max_length %d; Parse: %d, %d", d.MaxFrames, d.MaxLength, checked.MaxFrames, checked.MaxLength)
	}
	for _, re := range [][2]*regexp.Regexp{{d.sentinel, checked.sentinel}, {d.irrelevant, checked.irrelevant},
		{d.prefix, checked.prefix}, {d.trimModule, checked.trimModule}} {
		if re[0] == nil || re[1] == nil || re[0].String() != re[1].String() {
			t.Errorf("DefaultRules: %v; Parse: %v", re[0], re[1])
		}
	}
}
