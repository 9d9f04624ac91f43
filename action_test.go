package stackwalk

import (
	"bytes"
	"debug/elf"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The parts of action.yml the tests run.
type actionFile struct {
	Inputs map[string]struct {
		Required bool   `yaml:"required"`
		Default  string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	ID    string            `yaml:"id"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
}

func readAction(t *testing.T) *actionFile {
	t.Helper()
	data, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" || len(a.Runs.Steps) != 2 {
		t.Fatalf("action.yml: want a composite action of two steps, got %q with %d", a.Runs.Using, len(a.Runs.Steps))
	}
	for _, s := range a.Runs.Steps {
		// Inputs reach the scripts through env only: an expression in a
		// script would be spliced into the shell text (script injection).
		if s.Shell != "bash" || strings.Contains(s.Run, "${{") {
			t.Errorf("step %s: shell %q, or an expression in its script", s.ID, s.Shell)
		}
	}
	return &a
}

// dockerBuildCommand returns the Dockerfile's go build of the command, as
// a shell command line, with /out/ in place of the output directory.
func dockerBuildCommand(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !regexp.MustCompile(`(?m)^FROM gcr\.io/distroless/static\S*`).MatchString(text) {
		t.Errorf("Dockerfile: the final image is not distroless static")
	}
	for _, line := range strings.Split(strings.ReplaceAll(text, "\\\n", " "), "\n") {
		if cmd, ok := strings.CutPrefix(line, "RUN "); ok && strings.Contains(cmd, "go build") && strings.Contains(cmd, "./cmd/minidump-stackwalk") {
			return cmd
		}
	}
	t.Fatal("Dockerfile: no RUN go build of ./cmd/minidump-stackwalk")
	return ""
}

var staticBinary struct {
	once sync.Once
	path string
	err  error
}

// buildAsDockerfile runs the Dockerfile's build command in the repository
// (the build stage's /src) once per test binary, writing into a temporary
// directory instead of /out.
func buildAsDockerfile(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command:", err)
	}
	cmd := dockerBuildCommand(t)
	staticBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "msw-docker-build")
		if err != nil {
			staticBinary.err = err
			return
		}
		c := exec.Command("sh", "-c", strings.ReplaceAll(cmd, "/out/", dir+"/"))
		out, err := c.CombinedOutput()
		if err != nil {
			staticBinary.err = errors.New(cmd + ": " + err.Error() + "\n" + string(out))
		}
		staticBinary.path = filepath.Join(dir, "minidump-stackwalk")
	})
	if staticBinary.err != nil {
		t.Fatal(staticBinary.err)
	}
	return staticBinary.path
}

// The Dockerfile's build makes static ELF binaries, the command and the
// download helper beside it: no program interpreter (the dynamic loader)
// and no shared library, so distroless static (no libc) runs them.
func TestDockerfileBuildsStaticBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image is Linux")
	}
	bin := buildAsDockerfile(t)
	for _, b := range []string{bin, filepath.Join(filepath.Dir(bin), "minidump-stackwalk-fetch")} {
		checkStatic(t, b)
	}
	if out, err := exec.Command(bin, "--version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "minidump-stackwalk") {
		t.Errorf("--version: %v\n%s", err, out)
	}
}

// checkStatic fails unless bin is a static ELF executable.
func checkStatic(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("%s has a %v segment: not static", bin, p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s needs %v", bin, libs)
	}
}

// stepRun is one run of an action step.
type stepRun struct {
	status  int
	output  string            // stdout and stderr
	outputs map[string]string // what it wrote to $GITHUB_OUTPUT
}

// runStep runs a step's script as the runner does (bash --noprofile
// --norc -eo pipefail), its env evaluated from the inputs (defaults where
// not given) and the earlier steps' outputs.
func runStep(t *testing.T, a *actionFile, step int, inputs, prior map[string]string, env []string) stepRun {
	t.Helper()
	s := a.Runs.Steps[step]
	dir := t.TempDir()
	script, outFile := filepath.Join(dir, "step.sh"), filepath.Join(dir, "output")
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		t.Fatal(err)
	}
	expr := regexp.MustCompile(`^\$\{\{ (inputs|steps\.install\.outputs)\.([a-z-]+) \}\}$`)
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Env = append(env, "GITHUB_OUTPUT="+outFile)
	for k, v := range s.Env {
		m := expr.FindStringSubmatch(v)
		if m == nil {
			t.Fatalf("step %s: env %s=%q: not an input or the install step's output", s.ID, k, v)
		}
		val, ok := inputs[m[2]]
		if m[1] != "inputs" {
			val = prior[m[2]]
		} else if in, declared := a.Inputs[m[2]]; !declared {
			t.Fatalf("step %s: input %q is not declared", s.ID, m[2])
		} else if !ok {
			val = in.Default
		}
		cmd.Env = append(cmd.Env, k+"="+val)
	}
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	r := stepRun{output: string(out), outputs: map[string]string{}}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(outFile)
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			r.outputs[k] = v
		}
	}
	return r
}

// The install step: a binary given, a missing one, and the build with Go
// (a stand-in go records its flags, which must be the Dockerfile's).
func TestActionInstallStep(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the action's scripts are bash")
	}
	a := readAction(t)
	bin := buildAsDockerfile(t)
	path := "PATH=/usr/bin:/bin"
	r := runStep(t, a, 0, map[string]string{"binary": bin}, nil, []string{path})
	if r.status != 0 || r.outputs["binary"] != bin {
		t.Errorf("binary given: status %d, outputs %v\n%s", r.status, r.outputs, r.output)
	}
	r = runStep(t, a, 0, map[string]string{"binary": "/nonexistent/msw"}, nil, []string{path})
	if r.status != 1 || !strings.Contains(r.output, "::error title=minidump-stackwalk::") {
		t.Errorf("missing binary: status %d\n%s", r.status, r.output)
	}

	fake := t.TempDir()
	log := filepath.Join(fake, "go.log")
	goScript := `#!/bin/sh
{ echo "CGO_ENABLED=$CGO_ENABLED"; pwd; for a in "$@"; do echo "$a"; done; } > "$GO_LOG"
while [ $# -gt 1 ]; do [ "$1" = -o ] && cp "$REAL_BIN" "$2"; shift; done
`
	if err := os.WriteFile(filepath.Join(fake, "go"), []byte(goScript), 0o755); err != nil {
		t.Fatal(err)
	}
	actionPath, _ := os.Getwd()
	runner := t.TempDir()
	r = runStep(t, a, 0, nil, nil, []string{"PATH=" + fake + ":/usr/bin:/bin", "GO_LOG=" + log, "REAL_BIN=" + bin,
		"GITHUB_ACTION_PATH=" + actionPath, "RUNNER_TEMP=" + runner})
	if r.status != 0 || !strings.HasPrefix(r.outputs["binary"], runner) {
		t.Fatalf("build with go: status %d, outputs %v\n%s", r.status, r.outputs, r.output)
	}
	got := strings.Split(strings.TrimSpace(string(readOrFail(t, log))), "\n")
	want := strings.Fields(strings.ReplaceAll(dockerBuildCommand(t), `"`, ""))
	// want: CGO_ENABLED=0 go build FLAGS... -o /out/ ./cmd/minidump-stackwalk ./cmd/minidump-stackwalk-fetch
	if len(got) < 3 || got[0] != want[0] || got[1] != actionPath {
		t.Fatalf("go ran with %q, want %s in %s", got, want[0], actionPath)
	}
	gotArgs, wantArgs := strings.Join(got[2:], " "), strings.Join(want[2:], " ")
	gotArgs = strings.Replace(gotArgs, filepath.Dir(r.outputs["binary"])+"/", "/out/", 1)
	if gotArgs != wantArgs {
		t.Errorf("the action builds with\n%s\nthe Dockerfile with\n%s", gotArgs, wantArgs)
	}
}

func readOrFail(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The run step over three testdata crashes against a baseline holding the
// signature of two of them: with fail-on new it fails (status 1, one error
// annotation, one JUnit failure and two skipped known crashes), writes
// every file and the job summary; with fail-on none it passes; an unknown
// format is an error.
func TestActionRunStep(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the action's scripts are bash")
	}
	a := readAction(t)
	bin := buildAsDockerfile(t)
	wd, _ := os.Getwd()
	syms := filepath.Join(wd, "testdata", "symbols")
	dumps := t.TempDir()
	for _, d := range []string{"amd64-fp.dmp", "x86-fp.dmp", "amd64-cpp.dmp"} {
		if err := os.Symlink(filepath.Join(wd, "testdata", "dumps", d), filepath.Join(dumps, d)); err != nil {
			t.Fatal(err)
		}
	}
	base := filepath.Join(t.TempDir(), "base.json")
	if out, err := exec.Command(bin, "batch", "--progress", "never", "--symbols-path", syms, "--summary", base,
		filepath.Join(dumps, "amd64-fp.dmp")).CombinedOutput(); err != nil {
		t.Fatalf("baseline: %v\n%s", err, out)
	}
	work := t.TempDir()
	step := filepath.Join(work, "step-summary.md")
	env := []string{"PATH=/usr/bin:/bin", "GITHUB_STEP_SUMMARY=" + step, "GITHUB_WORKSPACE=" + wd}
	prior := map[string]string{"binary": bin}
	inputs := map[string]string{"dumps": dumps + "\n", "symbols": syms + "\n", "baseline": base, "fail-on": "new",
		"output-dir": filepath.Join(work, "out")}
	r := runStep(t, a, 1, inputs, prior, env)
	if r.status != 1 || r.outputs["exit-status"] != "1" || strings.Count(r.output, "::error ") != 1 {
		t.Errorf("fail-on new: status %d, outputs %v, want 1 and one error annotation\n%s", r.status, r.outputs, r.output)
	}
	for _, k := range []string{"summary", "results", "junit", "sarif"} {
		if fi, err := os.Stat(r.outputs[k]); err != nil || fi.Size() == 0 {
			t.Errorf("output %s=%q: %v", k, r.outputs[k], err)
		}
	}
	if lines := bytes.Count(readOrFail(t, r.outputs["results"]), []byte("\n")); lines != 3 {
		t.Errorf("%d JSON lines, want 3", lines)
	}
	var j struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Skipped  int `xml:"skipped,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(readOrFail(t, r.outputs["junit"]), &j); err != nil || len(j.Suites) != 1 ||
		j.Suites[0].Tests != 3 || j.Suites[0].Failures != 1 || j.Suites[0].Skipped != 2 {
		t.Errorf("junit: %v %+v, want 3 tests, 1 failure (amd64-cpp), 2 skipped (fp_leaf, known)", err, j)
	}
	if md := string(readOrFail(t, step)); !strings.HasPrefix(md, "### minidump-stackwalk: ") {
		t.Errorf("job summary:\n%s", md)
	}

	inputs["fail-on"] = "none"
	if r := runStep(t, a, 1, inputs, prior, env); r.status != 0 || r.outputs["exit-status"] != "0" {
		t.Errorf("fail-on none: status %d, outputs %v\n%s", r.status, r.outputs, r.output)
	}
	inputs["formats"] = "junit, xml"
	if r := runStep(t, a, 1, inputs, prior, env); r.status != 2 || !strings.Contains(r.output, "::error title=minidump-stackwalk::formats") {
		t.Errorf("unknown format: status %d\n%s", r.status, r.output)
	}
}
