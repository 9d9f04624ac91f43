package ciformat

import (
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
)

// JUnitOptions are the run's facts a JUnit file records.
type JUnitOptions struct {
	Suite     string    // test suite name; "minidump-stackwalk" when ""
	Timestamp time.Time // start of the run
	Hostname  string    // "localhost" when ""
	// SkipKnown reports crashes whose signature is in the baseline as
	// skipped rather than failed (with --fail-on new), so that the JUnit
	// failures are the crashes that fail the run.
	SkipKnown bool
}

// The JUnit elements, as the Ant/Surefire schema (testdata/junit.xsd)
// orders them: Jenkins, GitLab, Azure DevOps and GitHub test reporters read
// this form.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Package    string          `xml:"package,attr"`
	ID         int             `xml:"id,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Hostname   string          `xml:"hostname,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out"`
	SystemErr  string          `xml:"system-err"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitMessage `xml:"skipped"`
	Error     *junitMessage `xml:"error"`
	Failure   *junitMessage `xml:"failure"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes cases as one JUnit test suite: a test case per dump,
// named by its file and classed by its directory; a crash is a failure
// whose message is the signature and crash reason and whose text adds the
// crash address and top frames; a dump that could not be processed is an
// error (its type the status).
func WriteJUnit(w io.Writer, cases []Case, opt JUnitOptions) error {
	s := junitSuite{Name: cmpOr(opt.Suite, "minidump-stackwalk"), Hostname: cmpOr(opt.Hostname, "localhost"),
		Timestamp: opt.Timestamp.UTC().Format("2006-01-02T15:04:05"), Properties: []junitProperty{}}
	s.Package = s.Name
	var ms int64
	for i := range cases {
		c := &cases[i]
		ms += c.Milliseconds
		jc := junitCase{Name: filepath.Base(c.Path), Classname: classname(c.Path), Time: seconds(c.Milliseconds)}
		switch {
		case c.Failed() && opt.SkipKnown && !c.New:
			jc.Skipped = &junitMessage{Message: failureMessage(c), Text: failureText(c)}
			s.Skipped++
		case c.Failed():
			jc.Failure = &junitMessage{Message: failureMessage(c), Type: cmpOr(c.CrashReason, "crash"), Text: failureText(c)}
			s.Failures++
		case c.Broken():
			jc.Error = &junitMessage{Message: c.Status + ": " + firstLine(c.Error), Type: c.Status, Text: c.Error}
			s.Errors++
		}
		s.Cases = append(s.Cases, jc)
	}
	s.Tests = len(cases)
	s.Time = seconds(ms)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	e := xml.NewEncoder(w)
	e.Indent("", "  ")
	if err := e.Encode(junitSuites{Suites: []junitSuite{s}}); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// classname is the dump's directory in slash form, dots for the
// separators as JUnit viewers group class names by package ("." when the
// dump is in the current directory).
func classname(path string) string {
	dir := filepath.ToSlash(filepath.Dir(path))
	dir = strings.Trim(strings.ReplaceAll(dir, "/", "."), ".")
	return cmpOr(dir, ".")
}

func failureMessage(c *Case) string {
	m := "crash: " + c.Signature
	if c.New {
		m = "new crash: " + c.Signature
	} else if c.baselined {
		m = "known crash: " + c.Signature
	}
	if c.CrashReason != "" {
		m += " (" + c.CrashReason + ")"
	}
	return m
}

// failureText is the failure's body: signature, reason, address, status
// when partial, and the top frames numbered as the text output numbers them.
func failureText(c *Case) string {
	var b strings.Builder
	fmt.Fprintf(&b, "signature: %s\n", c.Signature)
	if c.CrashReason != "" {
		fmt.Fprintf(&b, "crash reason: %s\n", c.CrashReason)
	}
	if c.CrashAddress != "" {
		fmt.Fprintf(&b, "crash address: %s\n", c.CrashAddress)
	}
	if c.Status != "ok" {
		fmt.Fprintf(&b, "status: %s: %s\n", c.Status, firstLine(c.Error))
	}
	for i := range c.Frames {
		fmt.Fprintf(&b, "%2d  %s\n", i, frameText(&c.Frames[i]))
	}
	return b.String()
}

func seconds(ms int64) string { return fmt.Sprintf("%d.%03d", ms/1000, ms%1000) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
