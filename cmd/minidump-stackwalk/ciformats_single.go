package main

// The CI formats of the single-dump mode (docs/ci.md): -f/--format junit,
// sarif or github beside Breakpad's machine and human, with --baseline,
// --fail-on, --source-root, --signature-rules and --grouping-rules. The
// dump is one test case, one SARIF result; ciFlags (ciformats.go) writes
// them as batch does.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/signature"
)

// singleCI holds the single-dump mode's CI flags.
type singleCI struct {
	ciFlags
	formats      []string // -f/--format values, Breakpad's and the CI ones
	rulesFile    string
	groupingFile string
	rules        *signature.Rules
	fs           *pflag.FlagSet // nil in batch, whose options have no such flags
}

// singleFlagNames are the flags that only mean something with a CI format
// or --fail-on.
var singleFlagNames = [...]string{"format-output", "baseline", "source-root", "signature-rules", "grouping-rules"}

// addFormatFlag defines -f/--format, Breakpad's flag, repeatable for the CI
// formats.
func (c *singleCI) addFormatFlag(fs *pflag.FlagSet) {
	fs.VarP(&stringList{values: &c.formats}, "format", "f",
		"output `FORMAT`: machine (same as -m) or human (the default) as in Breakpad; junit, sarif\n"+
			"(in place of the report, or to FILE with junit=FILE, sarif=FILE) or github (annotations on\n"+
			"stderr, summary to $GITHUB_STEP_SUMMARY) for CI (repeatable; docs/ci.md)")
}

func (c *singleCI) addFlags(fs *pflag.FlagSet) {
	c.fs = fs
	c.addCommonFlags(fs) // ciformats.go
	fs.StringVar(&c.rulesFile, "signature-rules", "", "read the signature rules of the CI formats from `FILE` (as batch's)")
	fs.StringVar(&c.groupingFile, "grouping-rules", "", groupingRulesUsage)
}

// check splits -f's values into Breakpad's format (o.format) and the CI
// formats, and checks the CI flags against the rest; an error is a usage
// error.
func (c *singleCI) check(o *options) error {
	for _, f := range c.formats {
		switch f {
		case "machine", "human":
			if o.format != "" && o.format != f {
				return fmt.Errorf("-f %s and -f %s select different outputs; use one", o.format, f)
			}
			o.format = f
		default:
			c.ciFlags.formats = append(c.ciFlags.formats, f)
		}
	}
	if c.fs == nil {
		return nil
	}
	if len(c.ciFlags.formats) == 0 && !c.fs.Changed("fail-on") {
		for _, n := range singleFlagNames {
			if c.fs.Changed(n) {
				return fmt.Errorf("--%s applies to the CI formats: give -f junit, sarif or github, or --fail-on", n)
			}
		}
		return nil
	}
	if err := c.ciFlags.check(); err != nil { // ciformats.go
		return formatHint(err)
	}
	if c.collector == nil { // --fail-on none alone
		return nil
	}
	if c.takesStdout() {
		if other := c.stdoutOutput(o); other != "" {
			return fmt.Errorf("-f %s without =FILE prints in place of the report, and %s selects a report: give -f %s=FILE",
				c.stdoutFormat(), other, c.stdoutFormat())
		}
	}
	var err error
	c.rules, err = loadSignatureRules(c.rulesFile, c.groupingFile) // sigrules.go
	c.start = time.Now()
	return err
}

// formatHint adds Breakpad's two formats to an unknown -f value's error.
func formatHint(err error) error {
	if strings.Contains(err.Error(), "want junit, sarif or github") {
		return fmt.Errorf("%w (or machine, human)", err)
	}
	return err
}

// stdoutOutput names a flag that selects a report on stdout beside a CI
// format on stdout ("" when none).
func (c *singleCI) stdoutOutput(o *options) string {
	for _, n := range []string{"machine-readable", "brief", "stack-contents", "crashed-thread-only", "thread",
		"dump-stack", "json", "human", "cyborg", "output-file", "dump"} {
		if c.fs.Changed(n) {
			if f := c.fs.Lookup(n); f.Shorthand != "" {
				return "-" + f.Shorthand
			}
			return "--" + n
		}
	}
	if o.format != "" {
		return "-f " + o.format
	}
	return ""
}

// takesStdout reports whether a CI document goes to stdout in place of the
// report.
func (c *singleCI) takesStdout() bool { return c.stdoutFormat() != "" }

func (c *singleCI) stdoutFormat() string {
	for _, o := range c.outputs {
		if o.format != "github" && o.file == "" {
			return o.format
		}
	}
	return ""
}

// addOpenFailure records a dump that could not be opened.
func (c *singleCI) addOpenFailure(path string, err error) {
	if c.collector == nil {
		return
	}
	c.add(&triage.Result{Path: path, Status: openFailureStatus(err), Error: err.Error(),
		Milliseconds: time.Since(c.start).Milliseconds()})
}

// openFailureStatus is batch's status of a dump that could not be opened.
func openFailureStatus(err error) string {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.As(err, new(*fs.PathError)) {
		return triage.StatusUnreadable
	}
	return triage.StatusInvalid
}

// addState records a processed dump (err: what stopped processing, if
// anything) as batch reports it, with its signature.
func (c *singleCI) addState(path string, st *processor.ProcessState, err error) {
	if c.collector == nil {
		return
	}
	if st == nil {
		if err == nil {
			err = errors.New("not processed")
		}
		c.addOpenFailure(path, err)
		return
	}
	res := triage.Result{Path: path, Status: triage.StatusOK}
	fillResult(&res, st) // batch_adapter.go
	failures := st.Failures()
	if err != nil && len(failures) == 0 {
		failures = []error{err}
	}
	if len(failures) > 0 {
		res.Status, res.Error = triage.StatusPartial, errors.Join(failures...).Error()
	}
	res.Signature = c.rules.Generate(res.Frames, res.CrashingThread != nil)
	res.Milliseconds = time.Since(c.start).Milliseconds()
	c.add(&res)
}

// finishSingle writes the CI formats and returns the exit status the dump
// and --fail-on call for: at least status.
func (c *singleCI) finishSingle(status int, stdout, stderr io.Writer) int {
	if c.collector == nil {
		return status
	}
	c.stdout = stdout
	return max(status, c.finish(stderr))
}
