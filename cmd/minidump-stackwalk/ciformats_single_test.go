package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// validateJUnitFile validates with xmllint against the Ant JUnit XSD that
// triage/ciformat's tests use (skipped without xmllint).
func validateJUnitFile(t *testing.T, path string) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Log("xmllint not installed (apt-get install libxml2-utils): JUnit schema not checked")
		return
	}
	xsd := filepath.Join("..", "..", "triage", "ciformat", "testdata", "junit.xsd")
	if out, err := exec.Command(xmllint, "--noout", "--schema", xsd, path).CombinedOutput(); err != nil {
		t.Errorf("%s: xmllint: %v\n%s", path, err, out)
	}
}

// The single-dump mode's CI formats against a baseline made by batch: a
// known crash passes --fail-on new (JUnit skipped, SARIF unchanged, a
// notice), a new one fails it (JUnit failure, SARIF new, an error
// annotation); the signatures are batch's for the same dumps.
func TestSingleCIFormatsWithBaseline(t *testing.T) {
	syms := corpus.Testdata(t, "symbols")
	known, fresh := corpus.Testdata(t, "dumps", "amd64-fp.dmp"), corpus.Testdata(t, "dumps", "x86-cpp.dmp")
	out := t.TempDir()
	base := filepath.Join(out, "base.json")
	results, stderr, status := runBatchCLI("", "--symbols-path", syms, known, fresh)
	if status != exitOK || len(results) != 2 {
		t.Fatalf("batch: status %d\n%s", status, stderr)
	}
	sigs := byPath(results)
	if sigs[known].Signature == sigs[fresh].Signature {
		t.Fatalf("the test needs two signatures: %q", sigs[known].Signature)
	}
	if _, stderr, status := runBatchCLI("", "--symbols-path", syms, "--summary", base, known); status != exitOK {
		t.Fatalf("baseline: status %d\n%s", status, stderr)
	}
	for _, tc := range []struct {
		dump, state string
		status      int
		failures    int
		skipped     int
		annotation  string
	}{
		{known, "unchanged", exitOK, 0, 1, "::notice "},
		{fresh, "new", exitDump, 1, 0, "::error "},
	} {
		junit, sarif, step := filepath.Join(out, "r.xml"), filepath.Join(out, "r.sarif"), filepath.Join(out, "step.md")
		os.Remove(step)
		t.Setenv("GITHUB_STEP_SUMMARY", step)
		stdout, stderr, status := runCLI("-f", "junit="+junit, "-f", "sarif="+sarif, "-f", "github",
			"--baseline", base, "--fail-on", "new", tc.dump, syms)
		if status != tc.status {
			t.Errorf("%s: status %d, want %d\n%s", tc.dump, status, tc.status, stderr)
		}
		if !strings.Contains(stdout, "Thread 0 (crashed)") {
			t.Errorf("%s: no human report on stdout:\n%s", tc.dump, stdout)
		}
		validateJUnitFile(t, junit)
		var j junitCounts
		if err := xml.Unmarshal(readFile(t, junit), &j); err != nil || len(j.Suites) != 1 {
			t.Fatalf("%s: %v", junit, err)
		}
		if s := j.Suites[0]; s.Tests != 1 || s.Failures != tc.failures || s.Skipped != tc.skipped || s.Errors != 0 {
			t.Errorf("%s: junit %+v, want 1 test, %d failure, %d skipped", tc.dump, s, tc.failures, tc.skipped)
		}
		validateSARIFFile(t, sarif)
		var sr sarifResults
		if err := json.Unmarshal(readFile(t, sarif), &sr); err != nil {
			t.Fatal(err)
		}
		if r := sr.Runs[0].Results; len(r) != 1 || r[0].BaselineState != tc.state || r[0].Properties.Signature != sigs[tc.dump].Signature {
			t.Errorf("%s: SARIF results %+v, want one %s result with batch's signature %q", tc.dump, r, tc.state, sigs[tc.dump].Signature)
		}
		if !strings.Contains(stderr, tc.annotation) || strings.Count(stderr, "\n::") > 1 {
			t.Errorf("%s: want one %q annotation:\n%s", tc.dump, tc.annotation, stderr)
		}
		if md := string(readFile(t, step)); !strings.HasPrefix(md, "### minidump-stackwalk: ") {
			t.Errorf("job summary:\n%s", md)
		}
	}
}

// -f junit without a file prints the JUnit document in place of the
// report; a dump that cannot be read is a test error and exit status 1;
// grouping rules change the signature.
func TestSingleCIFormatOnStdout(t *testing.T) {
	syms := corpus.Testdata(t, "symbols")
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	stdout, stderr, status := runCLI("-f", "junit", "--symbols-path", syms, dump)
	var j junitCounts
	if err := xml.Unmarshal([]byte(stdout), &j); status != exitOK || err != nil || j.Suites[0].Failures != 1 {
		t.Fatalf("status %d, %v\n%s\n%s", status, err, stdout, stderr)
	}
	// The signature of amd64-fp.dmp is its top frame, fp_leaf (Breakpad's
	// output in testdata/oracle names it too); a grouping rule removing
	// it makes the caller the signature.
	if !strings.Contains(stdout, `message="crash: fp_leaf (SIGSEGV /SEGV_MAPERR)"`) {
		t.Errorf("failure message:\n%s", stdout)
	}
	rules := filepath.Join(t.TempDir(), "grouping.txt")
	if err := os.WriteFile(rules, []byte("# the leaf is a helper\nfunction:fp_leaf -group\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, _ = runCLI("-f", "junit", "--grouping-rules", rules, dump, syms)
	if !strings.Contains(stdout, `message="crash: fp_mid (SIGSEGV /SEGV_MAPERR)"`) {
		t.Errorf("with %s, failure message:\n%s", rules, stdout)
	}

	broken := filepath.Join(t.TempDir(), "broken.dmp")
	if err := os.WriteFile(broken, []byte("MDMP\x93\xa7"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, status = runCLI("-f", "junit", broken)
	var jb junitCounts
	if err := xml.Unmarshal([]byte(stdout), &jb); status != exitDump || err != nil || jb.Suites[0].Errors != 1 {
		t.Errorf("broken dump: status %d, %v\n%s\n%s", status, err, stdout, stderr)
	}
}

func TestSingleCIFlagErrors(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	bad := filepath.Join(t.TempDir(), "bad.rules")
	if err := os.WriteFile(bad, []byte("function:a -group\ncategory:x -group\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-f", "junit", "-m"}, "-m selects a report"},
		{[]string{"-f", "sarif", "--json"}, "--json selects a report"},
		{[]string{"-f", "junit", "-f", "machine"}, "-f machine selects a report"},
		{[]string{"-f", "junit", "-f", "sarif"}, "only one format"},
		{[]string{"-f", "machine", "-f", "human"}, "different outputs"},
		{[]string{"-f", "xml"}, "(or machine, human)"},
		{[]string{"--baseline", "x.json"}, "--baseline applies to the CI formats"},
		{[]string{"--fail-on", "new"}, "needs --baseline"},
		{[]string{"-f", "github", "--grouping-rules", bad}, "bad.rules:2: unknown matcher"},
	} {
		_, stderr, status := runCLI(append(tc.args, dump)...)
		if status != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: status %d, want %d and %q\n%s", tc.args, status, exitUsage, tc.want, stderr)
		}
	}
}
