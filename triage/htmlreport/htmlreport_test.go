package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

// sampleSummary has four groups, one with a hostile signature, one with two
// crash reasons, dumps of two systems, and a failure.
func sampleSummary() *summary.Summary {
	b := summary.NewBuilder(5)
	add := func(path, sig, reason, os string, frames ...triage.Frame) {
		n := 0
		b.Add(&triage.Result{Path: path, Status: triage.StatusOK, Signature: sig, Frames: frames, CrashingThread: &n,
			CrashReason: reason, OS: os, CPU: "amd64", Product: "app", ProductVersion: "1.2",
			Modules: []triage.Module{{Name: "libfoo.so", Version: "1.2"}}})
	}
	crash := triage.Frame{Module: "libfoo.so", Function: "Foo::crash()", File: "/src/foo.cc", Line: 42, Offset: "0x10", Trust: "context"}
	caller := triage.Frame{Module: "app", Function: "main", File: "/src/main.cc", Line: 7, Offset: "0x20", Trust: "cfi"}
	for i := range 6 {
		add("/d/a"+string(rune('0'+i))+".dmp", "Foo::crash", "SIGSEGV /SEGV_MAPERR", "Linux", crash, caller)
	}
	add("/d/b.dmp", "Foo::crash", "SIGSEGV /0x00000080", "Windows NT", crash, triage.Frame{Module: "app", Offset: "0x99", Trust: "scan"})
	add("/d/c.dmp", "zeta::other", "SIGABRT", "Linux", triage.Frame{Module: "libz.so", Function: "zeta::other", Offset: "0x1", Trust: "context"})
	add("/d/d.dmp", "<script>alert(1)</script>", "SIGABRT", "Linux", triage.Frame{Module: "m", Function: "<script>alert(1)</script>", Offset: "0x1", Trust: "context"})
	add("/d/e.dmp", "alpha", "SIGABRT", "Windows NT", triage.Frame{Module: "m", Function: "alpha", Offset: "0x1", Trust: "context"})
	b.Add(&triage.Result{Path: "/d/bad.dmp", Status: triage.StatusInvalid, Error: "no minidump header"})
	s := b.Summary()
	s.Run = &summary.Run{Date: "2026-11-28T09:00:00Z", Version: "v1.2.3 (git abc)", Args: []string{"--symbols-path=/syms", "/d"},
		Inputs: []string{"/d"}, SymbolPaths: []string{"/syms", "https://symbols.example.com/"}, OutputDir: "/out/reports"}
	return s
}

func render(t *testing.T, s *summary.Summary, opts Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, s, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestWriteSelfContained(t *testing.T) {
	page := render(t, sampleSummary(), Options{ReportLink: func(p string) string { return "reports/" + p[3:] + ".json" }})
	for _, want := range []string{"Foo::crash", "/src/foo.cc:42", "/d/a0.dmp", "SIGSEGV / SEGV_MAPERR", "SIGSEGV / 0x00000080",
		"no minidump header", `\u003cscript\u003ealert(1)\u003c/script\u003e`,
		// run information and breakdowns
		"2026-11-28T09:00:00Z", "v1.2.3 (git abc)", "https://symbols.example.com/", "--symbols-path=/syms",
		`data-facet="os" data-value="Windows NT"`, "Operating system", "app 1.2", "11 inputs", "4 signatures", "8 dumps, 80.0%", "10 dumps, 100.0%",
		`<a href="reports/bad.dmp.json">report</a>`, `(1 input)</span></h2>
<details id="failed" open>`, `"reports/a0.dmp.json"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script>alert(1)", "SEGV_MAPERR /", "1 dumps", "1 signatures", "SIGSEGV /SEGV"} {
		if strings.Contains(page, bad) {
			t.Errorf("page has %q", bad)
		}
	}
	// Nothing is fetched: no src attribute, no url() in styles, links only
	// relative.
	if m := regexp.MustCompile(`(?i)\ssrc\s*=|url\(|@import|href="[a-z]+:`).FindString(page); m != "" {
		t.Errorf("page refers to an outside resource: %q", m)
	}
	// The one script runs by its hash: the policy names it, and nothing
	// else.
	sum := sha256.Sum256([]byte(script))
	if !strings.Contains(html.UnescapeString(page), "script-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") ||
		!strings.Contains(page, "<script>"+script+"</script>") {
		t.Error("the page's script is not the one its Content-Security-Policy allows")
	}
	if strings.Contains(page, "unsafe-eval") || strings.Count(page, "<script") != 2 {
		t.Errorf("want the data block and the one script, %d <script elements", strings.Count(page, "<script"))
	}
}

// A merged summary's page shows the merge's run and each part's.
func TestWriteMergedRun(t *testing.T) {
	s := sampleSummary()
	part := *s.Run
	s.Run = &summary.Run{Date: "2026-11-28T10:00:00Z", Args: []string{"merge", "a.json", "b.json"}, Inputs: []string{"a.json", "b.json"},
		Parts: []summary.Run{part, {Date: "2026-11-28T09:30:00Z", Inputs: []string{"/e"}}}}
	page := render(t, s, Options{})
	for _, want := range []string{"merge a.json b.json", "Merged run 1 of 2", "Merged run 2 of 2", "2026-11-28T09:30:00Z", "https://symbols.example.com/"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// Paths, signatures, frames and errors with control bytes and invalid
// UTF-8 reach the page escaped, never raw (issue 26.13).
func TestWriteNoControlBytes(t *testing.T) {
	b := summary.NewBuilder(5)
	n := 0
	hostile := "evil\x1b]0;t\x07\xff\r\n\u0085\u2028"
	b.Add(&triage.Result{Path: "/d/" + hostile + ".dmp", Status: triage.StatusOK, Signature: "sig" + hostile, CrashingThread: &n,
		CrashReason: "SIG" + hostile, Modules: []triage.Module{{Name: "m" + hostile}}, OS: "os" + hostile, Product: "p" + hostile,
		Frames: []triage.Frame{{Module: "m" + hostile, Function: "f" + hostile, File: "/src/" + hostile, Line: 1, Offset: "0x1", Trust: "context"}}})
	b.Add(&triage.Result{Path: "/d/bad" + hostile, Status: triage.StatusInvalid, Error: "line one " + hostile + "\nline two"})
	s := b.Summary()
	s.Run = &summary.Run{Args: []string{"--x=" + hostile}, Inputs: []string{hostile}, Parts: []summary.Run{{Version: hostile}}}
	page := render(t, s, Options{})
	for i, r := range page {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) || r == 0x2028 || (r == utf8.RuneError && !strings.HasPrefix(page[i:], "\uFFFD")) {
			t.Fatalf("raw %q at offset %d: %q", r, i, page[max(0, i-40):min(len(page), i+40)])
		}
	}
	if !strings.Contains(page, `/d/evil\\x1b]0;t\\x07\\xff\\x0d\\x0a`) || !strings.Contains(page, "line one evil") ||
		!strings.Contains(page, `--x=evil\x1b]0;t`) {
		t.Errorf("the escaped path, error or argument is missing from the page")
	}
}

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{{0, "dump", "0 dumps"}, {1, "dump", "1 dump"}, {2, "dump", "2 dumps"}, {1, "input", "1 input"},
		{3, "distinct stack", "3 distinct stacks"}, {2, "summary", "2 summaries"}, {2, "process", "2 processes"}} {
		if got := plural(tc.n, tc.noun); got != tc.want {
			t.Errorf("plural(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

// Breakpad's reasons read as rust-minidump's JSON spells them (its
// crash_info.type, report/json_build.go), except that an unknown code is
// kept.
func TestReadableReason(t *testing.T) {
	for in, want := range map[string]string{
		"SIGSEGV /SEGV_MAPERR":                  "SIGSEGV / SEGV_MAPERR",
		"SIGSEGV /0x00000000":                   "SIGSEGV / 0x00000000",
		"SIGABRT":                               "SIGABRT",
		"SIGBUS /":                              "SIGBUS",
		"EXCEPTION_ACCESS_VIOLATION_READ":       "EXCEPTION_ACCESS_VIOLATION_READ",
		"EXC_BAD_ACCESS / KERN_INVALID_ADDRESS": "EXC_BAD_ACCESS / KERN_INVALID_ADDRESS",
	} {
		if got := readableReason(in); got != want {
			t.Errorf("readableReason(%q) = %q, want %q", in, got, want)
		}
	}
	// Reasons that read the same are counted together.
	got := readableReasons([]summary.NameCount{{Name: "SIGSEGV /SEGV_MAPERR", Count: 2}, {Name: "SIGSEGV / SEGV_MAPERR", Count: 1}})
	if len(got) != 1 || got[0].Count != 3 {
		t.Errorf("readableReasons: %v, want one reason counted 3 times", got)
	}
}

// A summary older than configs (no configs) counts its dumps as of
// unknown system.
func TestBreakdownsWithoutConfigs(t *testing.T) {
	s := sampleSummary()
	for i := range s.Groups {
		s.Groups[i].Configs = nil
	}
	page := render(t, s, Options{})
	if !strings.Contains(page, `data-facet="os" data-value="(unknown)" aria-pressed="false"><span class="v">(unknown)</span><span class="n">10 dumps, 100.0%`) {
		t.Error("dumps without configs are not counted as (unknown)")
	}
}
