package ciformat

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

// SARIFSchema is the URI of the SARIF 2.1.0 schema a log names.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// FingerprintKey names the partial fingerprint of a result: a hash of its
// crash signature, stable across runs, machines and dump paths.
const FingerprintKey = "crashSignatureHash/v1"

// SARIFOptions are the run's facts a SARIF log records.
type SARIFOptions struct {
	ToolVersion string
	// SourceRoot, when set, is cut from the front of source paths so that
	// they are relative to the repository (what code scanning expects).
	SourceRoot string
	// Baselined: a baseline was given, so each result has a
	// baselineState (new or unchanged).
	Baselined bool
}

// Only the SARIF properties this package writes.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
	DefaultConfig    struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	Stacks              []sarifStack      `json:"stacks,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	BaselineState       string            `json:"baselineState,omitempty"`
	OccurrenceCount     int               `json:"occurrenceCount"`
	Properties          sarifProperties   `json:"properties"`
}

type sarifProperties struct {
	Signature    string   `json:"signature"`
	CrashReasons []string `json:"crashReasons,omitempty"`
	Examples     []string `json:"examples"`
}

type sarifStack struct {
	Message sarifMessage      `json:"message"`
	Frames  []sarifStackFrame `json:"frames"`
}

type sarifStackFrame struct {
	Location sarifLocation `json:"location"`
	Module   string        `json:"module,omitempty"`
}

type sarifLocation struct {
	Physical *sarifPhysical `json:"physicalLocation,omitempty"`
	Logical  []sarifLogical `json:"logicalLocations,omitempty"`
	Message  *sarifMessage  `json:"message,omitempty"`
}

type sarifPhysical struct {
	Artifact struct {
		URI string `json:"uri"`
	} `json:"artifactLocation"`
	Region *sarifRegion `json:"region,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	Name               string `json:"name,omitempty"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind,omitempty"`
}

// maxExamples bounds the example dumps of a result; maxNotifications the
// dumps that could not be processed listed in the invocation.
const (
	maxExamples      = 10
	maxNotifications = 100
)

// WriteSARIF writes one SARIF 2.1.0 run: one result per crash signature
// (ruleId: the class of its crash reason), located at the innermost frame
// with a source file (else at the example dump), with the representative
// stack's top frames, a partial fingerprint hashed from the signature and,
// with a baseline, whether the signature is new. Dumps that could not be
// processed are the invocation's notifications.
func WriteSARIF(w io.Writer, cases []Case, opt SARIFOptions) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "minidump-stackwalk", Version: opt.ToolVersion,
		InformationURI: "https://github.com/minidump-stackwalk/minidump-stackwalk", Rules: []sarifRule{}}},
		Results: []sarifResult{}}
	inv := sarifInvocation{ExecutionSuccessful: true}
	for i := range cases {
		if c := &cases[i]; c.Broken() {
			inv.ExecutionSuccessful = false
			if len(inv.Notifications) < maxNotifications {
				inv.Notifications = append(inv.Notifications, sarifNotification{Level: "error",
					Message:   sarifMessage{fmt.Sprintf("%s: %s: %s", c.Path, c.Status, firstLine(c.Error))},
					Locations: []sarifLocation{{Physical: artifact(pathURI(c.Path, ""), 0)}}})
			}
		}
	}
	run.Invocations = []sarifInvocation{inv}
	ruleIndex := map[string]int{}
	for _, g := range groups(cases) {
		rule := crashClass(g[0].CrashReason)
		if _, ok := ruleIndex[rule.id]; !ok {
			ruleIndex[rule.id] = len(run.Tool.Driver.Rules)
			r := sarifRule{ID: rule.id, ShortDescription: sarifMessage{rule.text}}
			r.DefaultConfig.Level = "error"
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, r)
		}
		run.Results = append(run.Results, sarifGroup(g, rule.id, ruleIndex[rule.id], opt))
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	if err := e.Encode(sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}}); err != nil {
		return fmt.Errorf("sarif: %w", err)
	}
	return nil
}

// sarifGroup is the result of the cases of one signature.
func sarifGroup(g []Case, ruleID string, ruleIndex int, opt SARIFOptions) sarifResult {
	rep := &g[0]
	var reasons []string
	props := sarifProperties{Signature: rep.Signature, Examples: []string{}}
	for _, c := range g {
		if c.CrashReason != "" && !slices.Contains(reasons, c.CrashReason) {
			reasons = append(reasons, c.CrashReason)
		}
		if len(props.Examples) < maxExamples {
			props.Examples = append(props.Examples, c.Path)
		}
	}
	props.CrashReasons = reasons
	msg := fmt.Sprintf("Crash %s in %d dump%s", rep.Signature, len(g), plural(len(g)))
	if len(reasons) > 0 {
		msg += ": " + strings.Join(reasons, ", ")
	}
	res := sarifResult{RuleID: ruleID, RuleIndex: ruleIndex, Level: "error", Message: sarifMessage{msg},
		PartialFingerprints: map[string]string{FingerprintKey: SignatureHash(rep.Signature)},
		OccurrenceCount:     len(g), Properties: props}
	if opt.Baselined {
		res.BaselineState = "unchanged"
		if rep.New {
			res.BaselineState = "new"
		}
	}
	st := sarifStack{Message: sarifMessage{"crashing thread of " + rep.Path}, Frames: []sarifStackFrame{}}
	var top *sarifLocation
	for i := range rep.Frames {
		f := &rep.Frames[i]
		loc := frameLocation(f, opt.SourceRoot)
		st.Frames = append(st.Frames, sarifStackFrame{Location: loc, Module: f.Module})
		if top == nil && loc.Physical != nil {
			top = &loc
		}
	}
	if top == nil { // no source file known: point at the dump
		l := sarifLocation{Physical: artifact(pathURI(rep.Path, ""), 0)}
		if len(rep.Frames) > 0 {
			l.Logical = frameLocation(&rep.Frames[0], "").Logical
		}
		top = &l
	}
	res.Locations = []sarifLocation{*top}
	if len(st.Frames) > 0 {
		res.Stacks = []sarifStack{st}
	}
	return res
}

// SignatureHash is the hex SHA-256 of a signature, cut to 32 digits: the
// result's partial fingerprint.
func SignatureHash(sig string) string {
	h := sha256.Sum256([]byte(sig))
	return hex.EncodeToString(h[:16])
}

func frameLocation(f *triage.Frame, root string) sarifLocation {
	loc := sarifLocation{Logical: []sarifLogical{{Name: f.Function, FullyQualifiedName: logicalName(f)}}}
	if f.Function != "" {
		loc.Logical[0].Kind = "function"
	} else {
		loc.Logical[0].Kind = "module"
	}
	if f.File != "" {
		loc.Physical = artifact(pathURI(f.File, root), f.Line)
	}
	return loc
}

func artifact(uri string, line int) *sarifPhysical {
	p := &sarifPhysical{}
	p.Artifact.URI = uri
	if line > 0 {
		p.Region = &sarifRegion{StartLine: line}
	}
	return p
}

// hasWindowsDrive says whether p starts with a drive, "C:\" or "C:/". A
// function, not a regexp compiled by the package's initialiser at every
// start of the command (issue 29).
func hasWindowsDrive(p string) bool {
	if len(p) < 3 || p[1] != ':' || (p[2] != '/' && p[2] != '\\') {
		return false
	}
	c := p[0] | 0x20 // lower case
	return c >= 'a' && c <= 'z'
}

// pathURI is a source or dump path as a URI reference: relative to root
// when under it, a file: URI when absolute (Unix or Windows), else a
// relative reference.
func pathURI(p, root string) string {
	p = relativePath(p, root)
	switch {
	case hasWindowsDrive(p):
		return (&url.URL{Scheme: "file", Path: "/" + path.Clean(p)}).String()
	case strings.HasPrefix(p, "/"):
		return (&url.URL{Scheme: "file", Path: path.Clean(p)}).String()
	}
	return (&url.URL{Path: p}).String()
}

// A crash class is a SARIF rule: the kind of fault, whatever the OS's name
// for it.
type class struct{ id, text string }

// crashClasses map words of crash reasons (Breakpad's names on Linux,
// Windows and macOS) to their class; the first match wins, so the more
// specific words come first.
var crashClasses = []struct {
	words []string
	class class
}{
	{[]string{"STACK_OVERFLOW"}, class{"stack-overflow", "The stack overflowed"}},
	{[]string{"STACK_BUFFER_OVERRUN", "FAIL_FAST", "SIGABRT", "FATAL_APP_EXIT", "HEAP_CORRUPTION"},
		class{"abort", "The program aborted or failed fast"}},
	{[]string{"SIGSEGV", "ACCESS_VIOLATION", "EXC_BAD_ACCESS", "IN_PAGE_ERROR", "GUARD_PAGE"},
		class{"invalid-memory-access", "Invalid memory access"}},
	{[]string{"SIGBUS"}, class{"bus-error", "Bus error"}},
	{[]string{"SIGFPE", "DIVIDE_BY_ZERO", "INT_OVERFLOW", "FLT_", "EXC_ARITHMETIC"},
		class{"arithmetic", "Arithmetic fault"}},
	{[]string{"SIGILL", "ILLEGAL_INSTRUCTION", "PRIV_INSTRUCTION", "EXC_BAD_INSTRUCTION"},
		class{"illegal-instruction", "Illegal instruction"}},
	{[]string{"SIGTRAP", "BREAKPOINT"}, class{"breakpoint", "Breakpoint or trap"}},
}

func crashClass(reason string) class {
	for _, c := range crashClasses {
		for _, w := range c.words {
			if strings.Contains(reason, w) {
				return c.class
			}
		}
	}
	return class{"crash", "Crash"}
}
