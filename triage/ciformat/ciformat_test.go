package ciformat

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

// sampleResults are one of each kind of result: crashes with and without
// symbols (two sharing a signature), a partial crash, a requested dump, and
// dumps that could not be processed.
func sampleResults() []triage.Result {
	thread := 0
	sym := []triage.Frame{
		{Module: "crash", Function: "crash_here(int*)", File: "/build/src/crash.cc", Line: 42, Offset: "0x1234", Trust: "context"},
		{Module: "crash", Function: "main", File: "/build/src/main.cc", Line: 7, Offset: "0x1300", Trust: "cfi"},
		{Module: "libc.so.6", Offset: "0x29d90", Trust: "scan"},
	}
	nosym := []triage.Frame{{Module: "app.exe", Offset: "0x10a0", Trust: "context"}, {Offset: "0xdeadbeef", Trust: "scan"}}
	return []triage.Result{
		{Path: "dumps/linux/a.dmp", Status: "ok", Crashed: true, CrashReason: "SIGSEGV /SEGV_MAPERR", CrashAddress: "0x0",
			CrashingThread: &thread, Frames: sym, Signature: "crash_here", Milliseconds: 12},
		{Path: "dumps/linux/b.dmp", Status: "ok", Crashed: true, CrashReason: "SIGSEGV /SEGV_MAPERR", CrashAddress: "0x8",
			CrashingThread: &thread, Frames: sym, Signature: "crash_here", Milliseconds: 1500},
		{Path: "dumps/win/c.dmp", Status: "partial", Error: "module list: truncated at 0x40", Crashed: true,
			CrashReason: "EXCEPTION_ACCESS_VIOLATION_READ", CrashingThread: &thread, Frames: nosym, Signature: "app.exe@0x10a0"},
		{Path: "dumps/win/requested.dmp", Status: "ok", CrashingThread: &thread, Frames: sym, Signature: "crash_here"},
		{Path: "dumps/bad <&\"'>.dmp", Status: "invalid", Error: "not a minidump: bad magic at offset 0x0\x1b[31m\x00\nsecond line"},
		{Path: "gone.dmp", Status: "unreadable", Error: "open gone.dmp: permission denied"},
	}
}

func sampleCases(base Baseline) []Case {
	var c Collector
	for _, r := range sampleResults() {
		c.Add(&r)
	}
	return c.Cases(base)
}

var testTime = time.Date(2026, 11, 28, 7, 50, 0, 0, time.UTC)

func TestJUnitRoundTrip(t *testing.T) {
	for _, skipKnown := range []bool{false, true} {
		base := Baseline{"crash_here": true}
		var buf bytes.Buffer
		if err := WriteJUnit(&buf, sampleCases(base), JUnitOptions{Timestamp: testTime, Hostname: "ci-1", SkipKnown: skipKnown}); err != nil {
			t.Fatal(err)
		}
		var got junitSuites
		if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, buf.Bytes())
		}
		if len(got.Suites) != 1 {
			t.Fatalf("%d suites, want 1", len(got.Suites))
		}
		s := got.Suites[0]
		var failures, errs, skipped, passed int
		for _, c := range s.Cases {
			switch {
			case c.Failure != nil:
				failures++
			case c.Error != nil:
				errs++
			case c.Skipped != nil:
				skipped++
			default:
				passed++
			}
		}
		// Counted independently of the writer: 3 crashes (2 known, 1 new),
		// 1 requested dump, 2 unprocessable dumps.
		wantFail, wantSkip := 3, 0
		if skipKnown {
			wantFail, wantSkip = 1, 2
		}
		if s.Tests != 6 || len(s.Cases) != 6 || s.Failures != wantFail || failures != wantFail || s.Errors != 2 || errs != 2 ||
			s.Skipped != wantSkip || skipped != wantSkip || passed != 1 {
			t.Errorf("skipKnown %v: tests %d failures %d/%d errors %d/%d skipped %d/%d passed %d", skipKnown,
				s.Tests, s.Failures, failures, s.Errors, errs, s.Skipped, skipped, passed)
		}
		if s.Time != "1.512" || s.Timestamp != "2026-11-28T07:50:00" || s.Hostname != "ci-1" {
			t.Errorf("time %q timestamp %q hostname %q", s.Time, s.Timestamp, s.Hostname)
		}
		byName := map[string]junitCaseXML{}
		for _, c := range s.Cases {
			byName[c.Classname+"/"+c.Name] = c
		}
		a := byName["dumps.linux/a.dmp"]
		if skipKnown {
			a.Failure = a.Skipped
		}
		if a.Failure == nil || !strings.HasPrefix(a.Failure.Message, "known crash: crash_here") || !strings.Contains(a.Failure.Message, "SIGSEGV /SEGV_MAPERR") ||
			!strings.Contains(a.Failure.Text, "crash!crash_here(int*) [crash.cc : 42]") || !strings.Contains(a.Failure.Text, "libc.so.6+0x29d90") {
			t.Errorf("a.dmp: %+v", a.Failure)
		}
		if c := byName["dumps.win/c.dmp"]; c.Failure == nil || !strings.HasPrefix(c.Failure.Message, "new crash: app.exe@0x10a0") ||
			!strings.Contains(c.Failure.Text, "status: partial") {
			t.Errorf("c.dmp: %+v", c.Failure)
		}
		if c := byName[`dumps/bad <&"'>.dmp`]; c.Error == nil || c.Error.Type != "invalid" || strings.Contains(c.Error.Message, "second line") {
			t.Errorf("bad dump: %+v", c)
		}
		if c := byName["./gone.dmp"]; c.Error == nil || c.Error.Type != "unreadable" || !strings.Contains(c.Error.Message, "permission denied") {
			t.Errorf("gone.dmp: %+v", c)
		}
	}
}

// TestJUnitSchema validates the output against the Ant JUnit schema with
// xmllint (Debian's libxml2-utils), an independent validator.
func TestJUnitSchema(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not installed (apt-get install libxml2-utils)")
	}
	dir := t.TempDir()
	for name, cases := range map[string][]Case{"sample": sampleCases(nil), "empty": nil} {
		var buf bytes.Buffer
		if err := WriteJUnit(&buf, cases, JUnitOptions{Timestamp: testTime}); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, name+".xml")
		if err := os.WriteFile(f, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit.xsd", f).CombinedOutput()
		if err != nil {
			t.Errorf("%s: xmllint: %v\n%s\n%s", name, err, out, buf.Bytes())
		}
	}
}

func TestBaselineAndFailOn(t *testing.T) {
	b := summary.NewBuilder(3)
	for _, r := range sampleResults()[:2] {
		b.Add(&r)
	}
	cases := sampleCases(NewBaseline(b.Summary()))
	var news []string
	for _, c := range cases {
		if c.New {
			news = append(news, c.Path)
		}
	}
	if len(news) != 1 || news[0] != "dumps/win/c.dmp" {
		t.Errorf("new: %q, want the one crash of a signature not in the baseline", news)
	}
	for failOn, want := range map[string]int{FailOnNone: 0, FailOnNew: 1, FailOnAny: 3} {
		if got := len(Failing(cases, failOn)); got != want {
			t.Errorf("--fail-on %s: %d failing, want %d", failOn, got, want)
		}
	}
	if _, err := ParseFailOn("sometimes"); err == nil {
		t.Error("ParseFailOn accepted a bad value")
	}
}
