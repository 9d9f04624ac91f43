package htmlreport

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

// sampleSummary has three groups, one with a hostile signature, and a failure.
func sampleSummary() *summary.Summary {
	b := summary.NewBuilder(5)
	add := func(path, sig string, frames ...triage.Frame) {
		n := 0
		b.Add(&triage.Result{Path: path, Status: triage.StatusOK, Signature: sig, Frames: frames, CrashingThread: &n,
			CrashReason: "SIGSEGV /SEGV_MAPERR", Modules: []triage.Module{{Name: "libfoo.so", Version: "1.2"}}})
	}
	crash := triage.Frame{Module: "libfoo.so", Function: "Foo::crash()", File: "/src/foo.cc", Line: 42, Offset: "0x10", Trust: "context"}
	caller := triage.Frame{Module: "app", Function: "main", File: "/src/main.cc", Line: 7, Offset: "0x20", Trust: "cfi"}
	for i := range 6 {
		add("/d/a"+string(rune('0'+i))+".dmp", "Foo::crash", crash, caller)
	}
	add("/d/b.dmp", "Foo::crash", crash, triage.Frame{Module: "app", Offset: "0x99", Trust: "scan"})
	add("/d/c.dmp", "zeta::other", triage.Frame{Module: "libz.so", Function: "zeta::other", Offset: "0x1", Trust: "context"})
	add("/d/d.dmp", "<script>alert(1)</script>", triage.Frame{Module: "m", Function: "<script>alert(1)</script>", Offset: "0x1", Trust: "context"})
	add("/d/e.dmp", "alpha", triage.Frame{Module: "m", Function: "alpha", Offset: "0x1", Trust: "context"})
	b.Add(&triage.Result{Path: "/d/bad.dmp", Status: triage.StatusInvalid, Error: "no minidump header"})
	return b.Summary()
}

func TestWriteSelfContained(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sampleSummary()); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"Foo::crash", "/src/foo.cc:42", "/d/a0.dmp", "SIGSEGV /SEGV_MAPERR", "libfoo.so 1.2", "no minidump header", "&lt;script&gt;alert(1)&lt;/script&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("a signature is not escaped")
	}
	// Nothing is fetched: no src or href attribute, no url() in styles.
	if m := regexp.MustCompile(`(?i)\s(src|href)\s*=|url\(|@import`).FindString(page); m != "" {
		t.Errorf("page refers to an outside resource: %q", m)
	}
}

// Paths, signatures, frames and errors with control bytes and invalid
// UTF-8 reach the page escaped, never raw (issue 26.13).
func TestWriteNoControlBytes(t *testing.T) {
	b := summary.NewBuilder(5)
	n := 0
	hostile := "evil\x1b]0;t\x07\xff\r\n"
	b.Add(&triage.Result{Path: "/d/" + hostile + ".dmp", Status: triage.StatusOK, Signature: "sig" + hostile, CrashingThread: &n,
		CrashReason: "SIG" + hostile, Modules: []triage.Module{{Name: "m" + hostile}},
		Frames: []triage.Frame{{Module: "m" + hostile, Function: "f" + hostile, File: "/src/" + hostile, Line: 1, Offset: "0x1", Trust: "context"}}})
	b.Add(&triage.Result{Path: "/d/bad" + hostile, Status: triage.StatusInvalid, Error: "line one " + hostile + "\nline two"})
	var buf bytes.Buffer
	if err := Write(&buf, b.Summary()); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for i, r := range page {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) || (r == utf8.RuneError && !strings.HasPrefix(page[i:], "\uFFFD")) {
			t.Fatalf("raw %q at offset %d: %q", r, i, page[max(0, i-40):min(len(page), i+40)])
		}
	}
	if !strings.Contains(page, `/d/evil\x1b]0;t\x07\xff\x0d\x0a.dmp`) || !strings.Contains(page, "line one evil") {
		t.Errorf("the escaped path or error is missing from the page")
	}
}
