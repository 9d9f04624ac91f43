package ciformat

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

// TopFrames is how many frames of the crashing stack a Case keeps.
const TopFrames = 10

// Case is one dump as the CI formats show it.
type Case struct {
	Path         string
	Status       string // a triage status
	Error        string
	Crashed      bool
	CrashReason  string
	CrashAddress string
	Signature    string
	Frames       []triage.Frame // at most TopFrames, innermost first
	Milliseconds int64
	// New: a baseline was given and the signature is not in it.
	New bool
	// baselined: a baseline was given (and the signature is in it when
	// not New).
	baselined bool
}

// NewCase keeps what the CI formats show of r.
func NewCase(r *triage.Result) Case {
	return Case{Path: r.Path, Status: r.Status, Error: r.Error, Crashed: r.Crashed,
		CrashReason: r.CrashReason, CrashAddress: r.CrashAddress, Signature: r.Signature,
		Frames: slices.Clone(r.Frames[:min(len(r.Frames), TopFrames)]), Milliseconds: r.Milliseconds}
}

// Failed reports whether the case is a crash: a test failure in JUnit, a
// result in SARIF.
func (c *Case) Failed() bool {
	return c.Crashed && (c.Status == triage.StatusOK || c.Status == triage.StatusPartial)
}

// Broken reports whether the dump could not be processed into a report of
// a crash: a test error in JUnit.
func (c *Case) Broken() bool { return !c.Failed() && c.Status != triage.StatusOK }

// Collector accumulates cases; it is safe for concurrent use.
type Collector struct {
	mu    sync.Mutex
	cases []Case
}

// Add keeps one result.
func (c *Collector) Add(r *triage.Result) {
	k := NewCase(r)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cases = append(c.cases, k)
}

// Cases returns the cases sorted by path, each marked New when base is not
// nil and its signature is not in base.
func (c *Collector) Cases(base Baseline) []Case {
	c.mu.Lock()
	out := slices.Clone(c.cases)
	c.mu.Unlock()
	slices.SortStableFunc(out, func(a, b Case) int { return cmp.Compare(a.Path, b.Path) })
	for i := range out {
		out[i].New = base != nil && out[i].Failed() && !base[out[i].Signature]
		out[i].baselined = base != nil
	}
	return out
}

// Baseline is the set of signatures of an earlier run.
type Baseline map[string]bool

// NewBaseline returns the signatures of s's groups.
func NewBaseline(s *summary.Summary) Baseline {
	b := Baseline{}
	for _, g := range s.Groups {
		b[g.Signature] = true
	}
	return b
}

// FailOn values: which crashes make a run fail.
const (
	FailOnNone = "none" // crashes do not fail the run (its other errors do)
	FailOnNew  = "new"  // crashes whose signature is not in the baseline
	FailOnAny  = "any"  // every crash
)

// ParseFailOn checks a --fail-on value.
func ParseFailOn(s string) (string, error) {
	switch s {
	case FailOnNone, FailOnNew, FailOnAny:
		return s, nil
	}
	return "", fmt.Errorf("%q: want none, new or any", s)
}

// Failing returns the crashes that fail the run under failOn.
func Failing(cases []Case, failOn string) []Case {
	var out []Case
	for _, c := range cases {
		if c.Failed() && (failOn == FailOnAny || failOn == FailOnNew && c.New) {
			out = append(out, c)
		}
	}
	return out
}

// frameText is a frame as Breakpad's text prints it: module!function
// [file : line], or module + offset without symbols.
func frameText(f *triage.Frame) string {
	var b strings.Builder
	b.WriteString(logicalName(f))
	if f.File != "" {
		fmt.Fprintf(&b, " [%s : %d]", filepath.Base(f.File), f.Line)
	}
	return b.String()
}

// logicalName is module!function, module!offset without a function, or
// the absolute address outside any module.
func logicalName(f *triage.Frame) string {
	switch {
	case f.Module != "" && f.Function != "":
		return f.Module + "!" + f.Function
	case f.Module != "":
		return f.Module + "+" + f.Offset
	case f.Function != "":
		return f.Function
	}
	return f.Offset
}

// groups returns the failed cases by signature, the most frequent first.
func groups(cases []Case) [][]Case {
	bySig := map[string][]Case{}
	for _, c := range cases {
		if c.Failed() {
			bySig[c.Signature] = append(bySig[c.Signature], c)
		}
	}
	out := make([][]Case, 0, len(bySig))
	for _, g := range bySig {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b []Case) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), cmp.Compare(a[0].Signature, b[0].Signature))
	})
	return out
}
