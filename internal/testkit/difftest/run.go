package difftest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// WriteCase writes the dump and its symbol tree under dir and returns the
// dump's path and the symbol root.
func WriteCase(c *Case, dir string) (dumpPath, symRoot string, err error) {
	dumpPath = filepath.Join(dir, "case.dmp")
	symRoot = filepath.Join(dir, "symbols")
	if err := os.WriteFile(dumpPath, c.Dump, 0o644); err != nil {
		return "", "", err
	}
	for rel, text := range c.Symbols {
		p := filepath.Join(symRoot, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return "", "", err
		}
	}
	if err := os.MkdirAll(symRoot, 0o755); err != nil {
		return "", "", err
	}
	return dumpPath, symRoot, nil
}

// RunMachine runs a stack walker binary with -m (and extra flags) and
// returns its standard output.
func RunMachine(bin string, dumpPath, symRoot string, extra ...string) (string, error) {
	args := append([]string{"-m"}, extra...)
	args = append(args, dumpPath, symRoot)
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil && out.Len() == 0 {
		return "", fmt.Errorf("%s: %v: %s", bin, err, errb.String())
	}
	return out.String(), nil
}

// Frames returns the frames of thread 0 of -m output, each as
// module|function|file|line|offset.
func Frames(machine string) []string {
	var frames []string
	for _, line := range strings.Split(machine, "\n") {
		f := strings.Split(line, "|")
		if len(f) == 7 && f[0] == "0" {
			frames = append(frames, strings.Join(f[2:], "|"))
		}
	}
	return frames
}

// Recovered is the number of leading frames of got that equal the truth.
func Recovered(truth, got []string) int {
	n := 0
	for n < len(truth) && n < len(got) && truth[n] == got[n] {
		n++
	}
	return n
}

// Invented returns the frames ours reports, where Breakpad had stopped with
// a correct chain, that are not in the true chain: after Breakpad's last
// frame when all of its frames are true and ours are true exactly as far, or after
// the true outermost frame (whose stack holds only zeros above it). A true
// frame reached by skipping others is not counted (it is a shortfall, not an
// invention). Wrong frames after both walks have gone astray are not
// counted: there neither walker's choice can be judged against the other's.
func Invented(truth, breakpad, ours []string) []string {
	bpRec, ourRec := Recovered(truth, breakpad), Recovered(truth, ours)
	if bpRec != len(breakpad) || ourRec != bpRec {
		return nil // Breakpad went wrong itself, or never reached our mistake
	}
	real := map[string]bool{}
	for _, f := range truth {
		real[f] = true
	}
	var bad []string
	for _, f := range ours[ourRec:] {
		if !real[f] {
			bad = append(bad, f)
		}
	}
	return bad
}
