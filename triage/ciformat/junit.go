package ciformat

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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

// WriteJUnit writes cases as one JUnit test suite: a test case per dump,
// named by its file and classed by its directory; a crash is a failure
// whose message is the signature and crash reason and whose text adds the
// crash address and top frames; a dump that could not be processed is an
// error (its type the status).
//
// The elements are those of the Ant/Surefire schema (testdata/junit.xsd),
// in its order: Jenkins, GitLab, Azure DevOps and GitHub test reporters
// read this form. They are written by hand, byte for byte as encoding/xml's
// indenting encoder writes them (junit_test.go compares the two), so that
// the command links no encoding/xml and runs none of its initialisers.
func WriteJUnit(w io.Writer, cases []Case, opt JUnitOptions) error {
	var failures, errs, skipped int
	var ms int64
	for i := range cases {
		c := &cases[i]
		ms += c.Milliseconds
		switch {
		case c.Failed() && opt.SkipKnown && !c.New:
			skipped++
		case c.Failed():
			failures++
		case c.Broken():
			errs++
		}
	}
	name := cmpOr(opt.Suite, "minidump-stackwalk")
	x := &xmlWriter{}
	x.b = append(x.b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n<testsuites>\n  <testsuite"...)
	x.attr("name", name)
	x.attr("package", name)
	x.attr("id", "0")
	x.attr("timestamp", opt.Timestamp.UTC().Format("2006-01-02T15:04:05"))
	x.attr("hostname", cmpOr(opt.Hostname, "localhost"))
	x.attr("tests", strconv.Itoa(len(cases)))
	x.attr("failures", strconv.Itoa(failures))
	x.attr("errors", strconv.Itoa(errs))
	x.attr("skipped", strconv.Itoa(skipped))
	x.attr("time", seconds(ms))
	x.b = append(x.b, ">\n    <properties></properties>\n"...)
	for i := range cases {
		junitCase(x, &cases[i], opt.SkipKnown)
	}
	x.b = append(x.b, "    <system-out></system-out>\n    <system-err></system-err>\n  </testsuite>\n</testsuites>\n"...)
	if _, err := w.Write(x.b); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	return nil
}

// junitCase writes one dump's testcase element: a failure, a skipped crash
// (known, with SkipKnown), an error (not processed in full), or empty.
func junitCase(x *xmlWriter, c *Case, skipKnown bool) {
	x.b = append(x.b, "    <testcase"...)
	x.attr("name", filepath.Base(c.Path))
	x.attr("classname", classname(c.Path))
	x.attr("time", seconds(c.Milliseconds))
	var elem, message, typ, text string
	switch {
	case c.Failed() && skipKnown && !c.New:
		elem, message, text = "skipped", failureMessage(c), failureText(c)
	case c.Failed():
		elem, message, typ, text = "failure", failureMessage(c), cmpOr(c.CrashReason, "crash"), failureText(c)
	case c.Broken():
		elem, message, typ, text = "error", c.Status+": "+firstLine(c.Error), c.Status, c.Error
	default:
		x.b = append(x.b, "></testcase>\n"...)
		return
	}
	x.b = append(x.b, ">\n      <"+elem...)
	x.attr("message", message)
	if typ != "" {
		x.attr("type", typ)
	}
	x.b = append(x.b, '>')
	x.escape(text)
	x.b = append(x.b, "</"+elem+">\n    </testcase>\n"...)
}

// xmlWriter builds an XML document in memory.
type xmlWriter struct{ b []byte }

// attr appends ` name="value"`, the value escaped.
func (x *xmlWriter) attr(name, value string) {
	x.b = append(x.b, ' ')
	x.b = append(x.b, name...)
	x.b = append(x.b, `="`...)
	x.escape(value)
	x.b = append(x.b, '"')
}

// escape appends s as encoding/xml's EscapeText escapes text and attribute
// values: the five markup characters, tab and line breaks as character
// references, and what XML cannot hold (control bytes, invalid UTF-8) as
// U+FFFD.
func (x *xmlWriter) escape(s string) {
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if xmlChar(r) && (r != utf8.RuneError || width > 1) {
				continue
			}
			esc = "\uFFFD"
		}
		x.b = append(x.b, s[last:i-width]...)
		x.b = append(x.b, esc...)
		last = i
	}
	x.b = append(x.b, s[last:]...)
}

// xmlChar says whether r is in XML 1.0's Char production.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
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
