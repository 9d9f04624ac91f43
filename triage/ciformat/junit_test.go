package ciformat

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"
)

// The JUnit elements as encoding/xml reads and writes them: the reading
// side of TestJUnitRoundTrip, and the oracle of TestJUnitAsEncodingXML.
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
	Cases      []junitCaseXML  `xml:"testcase"`
	SystemOut  string          `xml:"system-out"`
	SystemErr  string          `xml:"system-err"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCaseXML struct {
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

// writeJUnitXML is WriteJUnit as encoding/xml's indenting encoder writes
// it (the writer before the command stopped linking encoding/xml): the
// oracle the hand-written writer must match byte for byte.
func writeJUnitXML(w io.Writer, cases []Case, opt JUnitOptions) error {
	s := junitSuite{Name: cmpOr(opt.Suite, "minidump-stackwalk"), Hostname: cmpOr(opt.Hostname, "localhost"),
		Timestamp: opt.Timestamp.UTC().Format("2006-01-02T15:04:05"), Properties: []junitProperty{}}
	s.Package = s.Name
	var ms int64
	for i := range cases {
		c := &cases[i]
		ms += c.Milliseconds
		jc := junitCaseXML{Name: filepath.Base(c.Path), Classname: classname(c.Path), Time: seconds(c.Milliseconds)}
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
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// checkJUnitAsEncodingXML fails t when WriteJUnit's output differs from
// encoding/xml's.
func checkJUnitAsEncodingXML(t *testing.T, cases []Case, opt JUnitOptions) {
	t.Helper()
	var got, want bytes.Buffer
	if err := WriteJUnit(&got, cases, opt); err != nil {
		t.Fatal(err)
	}
	if err := writeJUnitXML(&want, cases, opt); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("WriteJUnit differs from encoding/xml's output:\n got: %q\nwant: %q", got.Bytes(), want.Bytes())
	}
}

func TestJUnitAsEncodingXML(t *testing.T) {
	for _, skipKnown := range []bool{false, true} {
		checkJUnitAsEncodingXML(t, sampleCases(Baseline{"crash_here": true}), JUnitOptions{Timestamp: testTime, Hostname: "ci-1", SkipKnown: skipKnown})
		checkJUnitAsEncodingXML(t, sampleCases(nil), JUnitOptions{Timestamp: testTime, SkipKnown: skipKnown, Suite: "s\t<\"'&>\r\n"})
	}
	checkJUnitAsEncodingXML(t, nil, JUnitOptions{Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600))})
	checkJUnitAsEncodingXML(t, []Case{{Path: "x.dmp", Status: "", Error: "e", Milliseconds: 1234567}}, JUnitOptions{})
	// Every byte value, alone and after a multi-byte rune, in each field
	// the writer escapes.
	var hostile []Case
	for b := range 256 {
		s := fmt.Sprintf("a%cb\u00e9%c\uFFFD\U0001F600\xed\xa0\x80\uFFFE", b, b)
		hostile = append(hostile, Case{Path: "d/" + s, Status: s, Error: s + "\n" + s},
			Case{Path: s, Status: "ok", Crashed: true, Signature: s, CrashReason: s, CrashAddress: s})
	}
	checkJUnitAsEncodingXML(t, hostile, JUnitOptions{Hostname: "h\x00"})
}

func FuzzJUnitAsEncodingXML(f *testing.F) {
	f.Add("dumps/bad <&\"'>.dmp", "invalid", "not a minidump\x1b[31m\x00\nsecond", "sig", "SIGSEGV", uint8(0))
	f.Add("a.dmp", "", "", "sig\r\n", "SIGSEGV /SEGV_MAPERR", uint8(1))
	f.Fuzz(func(t *testing.T, path, status, errText, signature, reason string, kind uint8) {
		// kind picks the status (as given, ok, partial), crashed, new and
		// baselined, so that every element the writer has is reached.
		status = [4]string{status, "ok", "partial", status}[kind&3]
		c := Case{Path: path, Status: status, Error: errText, Signature: signature, CrashReason: reason,
			CrashAddress: reason, Crashed: kind&4 != 0, New: kind&8 != 0, baselined: kind&16 != 0, Milliseconds: int64(len(path))}
		for _, skip := range []bool{false, true} {
			checkJUnitAsEncodingXML(t, []Case{c}, JUnitOptions{Hostname: status, Suite: signature, SkipKnown: skip})
		}
	})
}
