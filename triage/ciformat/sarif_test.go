package ciformat

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema compiles the published SARIF 2.1.0 schema (testdata/README.md)
// with format assertions on, so that URIs are checked too.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(SARIFSchema, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SARIFSchema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validateSARIF(t *testing.T, s *jsonschema.Schema, out []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("output does not validate: %v\n%s", err, out)
	}
}

func TestSARIFSchema(t *testing.T) {
	s := sarifSchema(t)
	// The validator must refuse what the schema forbids, or passing means nothing.
	if err := s.Validate(map[string]any{"version": "2.1.0", "runs": []any{map[string]any{"results": []any{}}}}); err == nil {
		t.Fatal("schema accepted a run without a tool")
	}
	for name, opt := range map[string]SARIFOptions{"plain": {}, "baseline": {Baselined: true, ToolVersion: "1.2.3", SourceRoot: "/build/"}} {
		var buf bytes.Buffer
		var base Baseline
		if opt.Baselined {
			base = Baseline{"crash_here": true}
		}
		if err := WriteSARIF(&buf, sampleCases(base), opt); err != nil {
			t.Fatal(err)
		}
		validateSARIF(t, s, buf.Bytes())
		if t.Failed() {
			t.Logf("%s", name)
		}
	}
	var empty bytes.Buffer
	if err := WriteSARIF(&empty, nil, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, s, empty.Bytes())
}

func TestSARIFResults(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, sampleCases(Baseline{"crash_here": true}), SARIFOptions{Baselined: true, SourceRoot: "/build"}); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	// Two signatures crashed (the requested dump is not a crash).
	if len(run.Results) != 2 {
		t.Fatalf("%d results, want 2:\n%s", len(run.Results), buf.Bytes())
	}
	r := run.Results[0]
	if r.Properties.Signature != "crash_here" || r.OccurrenceCount != 2 || r.RuleID != "invalid-memory-access" ||
		r.BaselineState != "unchanged" || run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
		t.Errorf("first result: %+v", r)
	}
	if p := r.Locations[0].Physical; p == nil || p.Artifact.URI != "src/crash.cc" || p.Region == nil || p.Region.StartLine != 42 {
		t.Errorf("first result's location: %+v", r.Locations[0])
	}
	if got := r.Stacks[0].Frames[2].Location.Logical[0].FullyQualifiedName; got != "libc.so.6+0x29d90" {
		t.Errorf("unsymbolized frame: %q", got)
	}
	r = run.Results[1]
	if r.Properties.Signature != "app.exe@0x10a0" || r.BaselineState != "new" || r.RuleID != "invalid-memory-access" ||
		r.Locations[0].Physical.Artifact.URI != "dumps/win/c.dmp" || r.Locations[0].Logical[0].FullyQualifiedName != "app.exe+0x10a0" {
		t.Errorf("second result: %+v", r)
	}
	inv := run.Invocations[0]
	if inv.ExecutionSuccessful || len(inv.Notifications) != 2 || !strings.Contains(inv.Notifications[1].Message.Text, "gone.dmp: unreadable") {
		t.Errorf("invocation: %+v", inv)
	}
	// The fingerprint depends on the signature only: other dumps and paths
	// with the same signature give the same one, another signature another.
	var moved []Case
	for _, c := range sampleCases(nil) {
		if c.Path == "dumps/linux/a.dmp" {
			moved = append(moved, c)
		}
	}
	moved[0].Path, moved[0].CrashAddress = "elsewhere/z.dmp", "0x99"
	var again bytes.Buffer
	if err := WriteSARIF(&again, moved, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	var log2 sarifLog
	if err := json.Unmarshal(again.Bytes(), &log2); err != nil {
		t.Fatal(err)
	}
	fp := run.Results[0].PartialFingerprints[FingerprintKey]
	if fp == "" || log2.Runs[0].Results[0].PartialFingerprints[FingerprintKey] != fp || run.Results[1].PartialFingerprints[FingerprintKey] == fp {
		t.Errorf("fingerprints not stable per signature: %v / %v / %v", fp,
			log2.Runs[0].Results[0].PartialFingerprints, run.Results[1].PartialFingerprints)
	}
}

func TestCrashClassAndURI(t *testing.T) {
	for reason, want := range map[string]string{
		"SIGSEGV /SEGV_MAPERR": "invalid-memory-access", "EXCEPTION_ACCESS_VIOLATION_WRITE": "invalid-memory-access",
		"EXC_BAD_ACCESS / KERN_INVALID_ADDRESS": "invalid-memory-access", "EXCEPTION_STACK_OVERFLOW": "stack-overflow",
		"SIGABRT": "abort", "EXCEPTION_STACK_BUFFER_OVERRUN / FAST_FAIL_FATAL_APP_EXIT": "abort",
		"SIGFPE /FPE_INTDIV": "arithmetic", "EXCEPTION_INT_DIVIDE_BY_ZERO": "arithmetic", "SIGILL /ILL_ILLOPN": "illegal-instruction",
		"SIGTRAP": "breakpoint", "EXCEPTION_BREAKPOINT": "breakpoint", "SIGBUS /BUS_ADRERR": "bus-error", "": "crash", "0xe06d7363": "crash",
	} {
		if got := crashClass(reason).id; got != want {
			t.Errorf("crashClass(%q) = %q, want %q", reason, got, want)
		}
	}
	for in, want := range map[string]string{
		"/build/src/a b.cc": "file:///build/src/a%20b.cc", `c:\src\app\main.cpp`: "file:///c:/src/app/main.cpp",
		"src/x.c": "src/x.c", "a:b/c.c": "./a:b/c.c",
	} {
		if got := pathURI(in, ""); got != want {
			t.Errorf("pathURI(%q) = %q, want %q", in, got, want)
		}
	}
}
