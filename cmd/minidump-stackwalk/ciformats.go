package main

// The CI outputs of batch (docs/ci.md): --format junit|sarif|github,
// --baseline and --fail-on. triage/ciformat writes the formats; this file
// parses the flags, collects the results and writes the files.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/ciformat"
)

// ciFlags are the CI flags of batch and the run's state for them.
type ciFlags struct {
	formats    []string // FORMAT or FORMAT=FILE
	output     string   // --format-output
	baseline   string
	failOn     string
	sourceRoot string

	// mode names the command in messages: "batch: ", or "" for the
	// single-dump mode (ciformats_single.go).
	mode      string
	outputs   []ciOutput
	base      ciformat.Baseline
	collector *ciformat.Collector // nil when nothing needs the cases
	stdout    io.Writer           // where a document without a file goes
	start     time.Time
}

// ciOutput is one --format: file "" is stdout (junit, sarif) or the
// defaults of github (annotations on stderr, summary to
// $GITHUB_STEP_SUMMARY).
type ciOutput struct{ format, file string }

func (c *ciFlags) addFlags(fs *pflag.FlagSet) {
	c.mode = "batch: "
	addStringList(fs, &c.formats, "format", "also write `FORMAT[=FILE]` (repeatable): junit, sarif (to FILE, or to stdout\n"+
		"in place of the JSON Lines), github (annotations on stderr, summary to $GITHUB_STEP_SUMMARY)")
	c.addCommonFlags(fs)
}

// addCommonFlags adds the flags batch and the single-dump mode share; the
// single-dump mode's -f takes the formats.
func (c *ciFlags) addCommonFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.output, "format-output", "", "write the one --format junit or sarif given without =FILE to `FILE`")
	fs.StringVar(&c.baseline, "baseline", "", "the --summary `FILE` of an earlier run: its signatures are known, the others new")
	fs.StringVar(&c.failOn, "fail-on", ciformat.FailOnNone, "crashes that make the exit status 1: none, new (needs --baseline), any")
	fs.StringVar(&c.sourceRoot, "source-root", "", "cut `DIR` from source paths in SARIF and annotations (the repository's checkout)")
}

// check parses the flags and reads the baseline; an error is a usage
// error.
func (c *ciFlags) check() error {
	var err error
	if c.failOn == "" { // flags built in code, not by addFlags
		c.failOn = ciformat.FailOnNone
	}
	if c.failOn, err = ciformat.ParseFailOn(c.failOn); err != nil {
		return fmt.Errorf("--fail-on %w", err)
	}
	if c.failOn == ciformat.FailOnNew && c.baseline == "" {
		return errors.New("--fail-on new: needs --baseline SUMMARY.json (the --summary of an earlier run)")
	}
	c.outputs = nil
	fileless := 0
	for _, f := range c.formats {
		o := ciOutput{}
		o.format, o.file, _ = strings.Cut(f, "=")
		switch o.format {
		case "junit", "sarif":
			if o.file == "" {
				fileless++
			}
		case "github":
			if o.file != "" {
				return fmt.Errorf("--format %s: github takes no FILE (its summary goes to $GITHUB_STEP_SUMMARY)", f)
			}
		default:
			return fmt.Errorf("--format %q: want junit, sarif or github, optionally =FILE", f)
		}
		c.outputs = append(c.outputs, o)
	}
	if c.output != "" {
		if fileless != 1 {
			return fmt.Errorf("--format-output: names the file of one --format junit or sarif given without =FILE; %d are", fileless)
		}
		for i := range c.outputs {
			if c.outputs[i].format != "github" && c.outputs[i].file == "" {
				c.outputs[i].file = c.output
			}
		}
	} else if fileless > 1 {
		return errors.New("--format: only one format can go to stdout; give the others =FILE")
	}
	if c.baseline != "" {
		s, _, err := readSummaryFile(c.baseline) // batch_merge.go
		if err != nil {
			return fmt.Errorf("--baseline: %w", err)
		}
		c.base = ciformat.NewBaseline(s)
	}
	if len(c.outputs) > 0 || c.failOn != ciformat.FailOnNone {
		c.collector = &ciformat.Collector{}
	}
	return nil
}

// jsonLines returns where batch writes its JSON Lines: nowhere when a
// format takes stdout.
func (c *ciFlags) jsonLines(stdout io.Writer) io.Writer {
	c.stdout, c.start = stdout, time.Now()
	for _, o := range c.outputs {
		if o.format != "github" && o.file == "" {
			return io.Discard
		}
	}
	return stdout
}

func (c *ciFlags) add(r *triage.Result) {
	if c.collector != nil {
		c.collector.Add(r)
	}
}

// finish writes the formats and applies --fail-on; it returns the exit
// status they call for.
func (c *ciFlags) finish(stderr io.Writer) int {
	if c.collector == nil {
		return exitOK
	}
	status := exitOK
	cases := c.collector.Cases(c.base)
	for _, o := range c.outputs {
		if err := c.write(o, cases, stderr); err != nil {
			fmt.Fprintf(stderr, "minidump-stackwalk: %s--format %s: %v\n", c.mode, o.format, err)
			status = exitDump
		}
	}
	if failing := ciformat.Failing(cases, c.failOn); len(failing) > 0 {
		sigs := map[string]bool{}
		for _, f := range failing {
			sigs[f.Signature] = true
		}
		what := "crash"
		if c.failOn == ciformat.FailOnNew {
			what = "new crash"
		}
		fmt.Fprintf(stderr, "minidump-stackwalk: %s--fail-on %s: %d %s dump(s) in %d signature(s), e.g. %s: %s\n",
			c.mode, c.failOn, len(failing), what, len(sigs), textsafe.Escape(failing[0].Path), textsafe.Escape(failing[0].Signature))
		status = exitDump
	}
	return status
}

func (c *ciFlags) write(o ciOutput, cases []ciformat.Case, stderr io.Writer) error {
	var write func(io.Writer) error
	switch o.format {
	case "junit":
		host, _ := os.Hostname()
		write = func(w io.Writer) error {
			return ciformat.WriteJUnit(w, cases, ciformat.JUnitOptions{Timestamp: c.start, Hostname: host,
				SkipKnown: c.failOn == ciformat.FailOnNew})
		}
	case "sarif":
		opt := ciformat.SARIFOptions{ToolVersion: versionString(debug.ReadBuildInfo()), SourceRoot: c.sourceRoot, Baselined: c.base != nil}
		write = func(w io.Writer) error { return ciformat.WriteSARIF(w, cases, opt) }
	case "github":
		return c.writeGitHub(cases, stderr)
	}
	if o.file == "" {
		return write(c.stdout)
	}
	if err := writeFileAtomic(o.file, write); err != nil {
		return err
	}
	return os.Chmod(o.file, 0o644) // for the CI job to publish
}

// writeGitHub writes the annotations on stderr (the runner reads workflow
// commands there, and stdout may be redirected to a file) and appends the
// job summary to $GITHUB_STEP_SUMMARY when set.
func (c *ciFlags) writeGitHub(cases []ciformat.Case, stderr io.Writer) error {
	opt := ciformat.GitHubOptions{SourceRoot: c.sourceRoot, Baselined: c.base != nil}
	if err := ciformat.WriteAnnotations(stderr, cases, opt); err != nil {
		return err
	}
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("$GITHUB_STEP_SUMMARY: %w", err)
	}
	err = ciformat.WriteMarkdown(f, cases, opt)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
