package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
)

// junitCounts are the attributes of the JUnit suite CI systems read.
type junitCounts struct {
	Suites []struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// sarifResults are the parts of a SARIF log the test checks.
type sarifResults struct {
	Runs []struct {
		Results []struct {
			BaselineState string `json:"baselineState"`
			Properties    struct {
				Signature string `json:"signature"`
			} `json:"properties"`
		} `json:"results"`
	} `json:"runs"`
}

// A CI run over testdata dumps: a baseline from two of them, then JUnit,
// SARIF, annotations and a job summary over all, failing on the new
// signatures only; the expected counts come from the run's JSON Lines.
func TestBatchCIFormatsWithBaseline(t *testing.T) {
	dir, good := testdataInputs(t)
	broken := filepath.Join(dir, "broken.dmp")
	if err := os.WriteFile(broken, []byte("MDMP\x93\xa7"), 0o600); err != nil {
		t.Fatal(err)
	}
	syms := corpus.Testdata(t, "symbols")
	out := t.TempDir()
	base := filepath.Join(out, "base.json")
	if _, stderr, status := runBatchCLI("", "--symbols-path", syms, "--summary", base, good[0], good[1]); status != exitOK {
		t.Fatalf("baseline run: status %d\n%s", status, stderr)
	}
	known := map[string]bool{}
	for _, g := range readSummary(t, base).Groups {
		known[g.Signature] = true
	}
	junit, sarif, step, all := filepath.Join(out, "r.xml"), filepath.Join(out, "r.sarif"), filepath.Join(out, "step.md"), filepath.Join(out, "all.json")
	t.Setenv("GITHUB_STEP_SUMMARY", step)
	results, stderr, status := runBatchCLI("", "--symbols-path", syms, "--baseline", base, "--fail-on", "new", "--summary", all,
		"--format", "junit="+junit, "--format", "sarif", "--format-output", sarif, "--format", "github", dir)
	var crashed, fresh int
	newSigs, sigs := map[string]bool{}, map[string]bool{}
	for _, r := range results {
		if r.Crashed && r.Signature != "" {
			crashed++
			sigs[r.Signature] = true
			if !known[r.Signature] {
				fresh++
				newSigs[r.Signature] = true
			}
		}
	}
	if len(results) != len(good)+1 || crashed < 3 || fresh == 0 || fresh == crashed {
		t.Fatalf("inputs %d, crashes %d, new %d: the test needs known and new crashes\n%s", len(results), crashed, fresh, stderr)
	}
	if status != exitDump || !strings.Contains(stderr, "--fail-on new: ") {
		t.Errorf("status %d with new crashes and a broken dump, want 1 and the reason\n%s", status, stderr)
	}
	var j junitCounts
	if err := xml.Unmarshal(readFile(t, junit), &j); err != nil {
		t.Fatal(err)
	}
	if s := j.Suites[0]; s.Tests != len(results) || s.Failures != fresh || s.Skipped != crashed-fresh || s.Errors != 1 {
		t.Errorf("junit tests %d failures %d skipped %d errors %d; want %d, %d new crashes, %d known, 1 error",
			s.Tests, s.Failures, s.Skipped, s.Errors, len(results), fresh, crashed-fresh)
	}
	validateSARIFFile(t, sarif)
	var sr sarifResults
	if err := json.Unmarshal(readFile(t, sarif), &sr); err != nil {
		t.Fatal(err)
	}
	gotNew := 0
	for _, r := range sr.Runs[0].Results {
		if r.BaselineState == "new" {
			gotNew++
			if !newSigs[r.Properties.Signature] {
				t.Errorf("SARIF calls %q new; the baseline has it", r.Properties.Signature)
			}
		}
	}
	if len(sr.Runs[0].Results) != len(sigs) || gotNew != len(newSigs) {
		t.Errorf("SARIF: %d results (%d new), want %d (%d new)", len(sr.Runs[0].Results), gotNew, len(sigs), len(newSigs))
	}
	if n := strings.Count(stderr, "\n::error "); n != len(newSigs)+1 {
		t.Errorf("%d error annotations, want one per new signature and one for the broken dump\n%s", n, stderr)
	}
	if md := string(readFile(t, step)); !strings.HasPrefix(md, "### minidump-stackwalk: ") {
		t.Errorf("job summary:\n%s", md)
	}
	if runtime.GOOS != "windows" {
		for _, f := range []string{junit, sarif} {
			if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o644 {
				t.Errorf("%s: %v %v, want mode 0644", f, fi.Mode(), err)
			}
		}
	}

	// Against a baseline of everything, nothing is new: status 0, and the
	// JUnit document on stdout in place of the JSON Lines.
	var o, e bytes.Buffer
	st := exitOK
	cmd := newBatchCommand(strings.NewReader(""), &o, &e, &st)
	cmd.SetArgs([]string{"--symbols-path", syms, "--baseline", all, "--fail-on", "new", "--format", "junit", good[0], good[2]})
	if err := cmd.Execute(); err != nil || st != exitOK {
		t.Errorf("known crashes only: status %d, %v\n%s", st, err, e.String())
	}
	var j2 junitCounts
	if err := xml.Unmarshal(o.Bytes(), &j2); err != nil || len(j2.Suites) != 1 || j2.Suites[0].Tests != 2 || j2.Suites[0].Failures != 0 {
		t.Errorf("JUnit on stdout: %v %+v\n%s", err, j2, o.String())
	}
}

func TestBatchCIFlagErrors(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	for _, args := range [][]string{
		{"--fail-on", "new"},
		{"--fail-on", "sometimes"},
		{"--format", "xml"},
		{"--format", "github=x.md"},
		{"--format", "junit", "--format", "sarif"},
		{"--format-output", "x.xml"},
		{"--baseline", filepath.Join(t.TempDir(), "missing.json")},
	} {
		if _, stderr, status := runBatchCLI("", append(args, dump)...); status != exitUsage {
			t.Errorf("%q: status %d, want %d\n%s", args, status, exitUsage, stderr)
		}
	}
}

// validateSARIFFile validates against the published SARIF 2.1.0 schema
// (triage/ciformat/testdata/README.md says where it comes from).
func validateSARIFFile(t *testing.T, path string) {
	t.Helper()
	schemaFile := filepath.Join("..", "..", "triage", "ciformat", "testdata", "sarif-schema-2.1.0.json")
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(readFile(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s does not validate: %v", path, err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
