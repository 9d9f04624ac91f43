package htmlreport

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

//go:embed report.html.tmpl
var pageTemplate string

// script is the page's one script. It is inserted verbatim and allowed by
// its hash in the page's Content-Security-Policy, so that nothing else, in
// particular nothing a dump controls, can run.
//
//go:embed report.js
var script string

// page is the parsed template, parsed on first use (a parse error is a
// build mistake that the tests catch). It is a text/template whose output
// actions escape explicitly, as html/template would (escape.go).
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{"plural": plural, "share": share, "inc": inc,
		"h": escapeHTML, "url": escapeURL, "json": escapeJSON}).Parse(pageTemplate))
})

func inc(i int) int { return i + 1 }

// Options are the report's choices beyond the summary.
type Options struct {
	// ReportLink returns the URL of a dump's own report (batch
	// --output-dir), relative to the page, or "" when there is none. Nil:
	// no links.
	ReportLink func(path string) string
}

// view is what the template reads.
type view struct {
	S          *summary.Summary
	Grouped    int // dumps with a signature
	Statuses   []summary.NameCount
	Skipped    []summary.NameCount
	Breakdowns []breakdown
	Failures   []failureView
	// FailedInputs counts the inputs not processed in full; Failures
	// lists the first of them (summary.DefaultFailures).
	FailedInputs int
	Data         pageData // read by the script
	Script       string   // inserted verbatim: our own script, never data
	CSP          string
}

type failureView struct {
	F    summary.Failure
	Link string
}

// breakdown is the grouped dumps counted by one facet.
type breakdown struct {
	Facet, Title string
	Values       []summary.NameCount
}

// pageData is the JSON the script renders the table from. Its lists are
// arrays, not objects, to keep a page of many groups small.
type pageData struct {
	Grouped int         `json:"grouped"`
	Groups  []groupData `json:"groups"`
	// Stacks maps a stack id to its frames: [module, function, where, trust].
	Stacks map[string][][4]string `json:"stacks"`
}

type groupData struct {
	Signature string `json:"s"`
	Count     int    `json:"n"`
	Reasons   []any  `json:"r"` // [reason, count]
	Modules   []any  `json:"m"` // [name, version, count]
	Configs   []any  `json:"c"` // [os, cpu, product, count]
	Stacks    []any  `json:"k"` // [stack id, count]
	Examples  []any  `json:"e"` // [path, link or ""]
}

// Write renders s as the HTML report.
func Write(w io.Writer, s *summary.Summary, opts Options) error {
	return page().Execute(w, newView(s, opts))
}

// newView is what the template reads of s.
func newView(s *summary.Summary, opts Options) view {
	links := exampleLinks(s, opts.ReportLink) // from the paths' own bytes
	var failureLinks []string
	for _, f := range s.Failures {
		failureLinks = append(failureLinks, linkOf(opts.ReportLink, f.Path))
	}
	s = escaped(s) // no control bytes from dumps or paths in the page (safe.go)
	v := view{S: s, Script: script, CSP: contentSecurityPolicy()}
	for i, f := range s.Failures {
		v.Failures = append(v.Failures, failureView{f, failureLinks[i]})
	}
	for _, g := range s.Groups {
		v.Grouped += g.Count
	}
	v.FailedInputs = s.Inputs - s.OK
	v.Statuses = sortedCounts(s.Statuses)
	v.Skipped = sortedCounts(s.Skipped)
	v.Breakdowns = breakdowns(s)
	v.Data = pageData{Grouped: v.Grouped, Stacks: map[string][][4]string{}}
	for i, g := range s.Groups {
		v.Data.Groups = append(v.Data.Groups, groupJSON(g, links[i]))
	}
	for id, frames := range s.Stacks {
		rows := make([][4]string, len(frames))
		for i, f := range frames {
			rows[i] = [4]string{f.Module, f.Function, where(f), f.Trust}
		}
		v.Data.Stacks[id] = rows
	}
	return v
}

func groupJSON(g summary.Group, links []string) groupData {
	d := groupData{Signature: g.Signature, Count: g.Count,
		Reasons: []any{}, Modules: []any{}, Configs: []any{}, Stacks: []any{}, Examples: []any{}}
	for _, r := range g.CrashReasons {
		d.Reasons = append(d.Reasons, []any{r.Name, r.Count})
	}
	for _, m := range g.Modules {
		d.Modules = append(d.Modules, []any{m.Name, m.Version, m.Count})
	}
	for _, c := range g.Configs {
		d.Configs = append(d.Configs, []any{orUnknown(c.OS), orUnknown(c.CPU), productLabel(c.Config), c.Count})
	}
	for _, st := range g.Stacks {
		d.Stacks = append(d.Stacks, []any{st.ID, st.Count})
	}
	for i, e := range g.Examples {
		d.Examples = append(d.Examples, []any{e, links[i]})
	}
	return d
}

// exampleLinks returns the report link of each group's examples ("" for
// none).
func exampleLinks(s *summary.Summary, link func(string) string) [][]string {
	out := make([][]string, len(s.Groups))
	for i, g := range s.Groups {
		out[i] = make([]string, len(g.Examples))
		for j, e := range g.Examples {
			out[i][j] = linkOf(link, e)
		}
	}
	return out
}

func linkOf(link func(string) string, path string) string {
	if link == nil {
		return ""
	}
	return link(path)
}

// contentSecurityPolicy allows the page's own script and styles, and
// nothing from anywhere: no fetch, no image, no other script.
func contentSecurityPolicy() string {
	sum := sha256.Sum256([]byte(script))
	return "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-" +
		base64.StdEncoding.EncodeToString(sum[:]) + "'; base-uri 'none'; form-action 'none'"
}

// breakdowns counts the grouped dumps by OS, CPU, product and module.
func breakdowns(s *summary.Summary) []breakdown {
	os, cpu, product, module := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	for _, g := range s.Groups {
		known := 0
		for _, c := range g.Configs {
			os[orUnknown(c.OS)] += c.Count
			cpu[orUnknown(c.CPU)] += c.Count
			product[productLabel(c.Config)] += c.Count
			known += c.Count
		}
		if rest := g.Count - known; rest > 0 { // a summary older than configs
			os[unknown] += rest
			cpu[unknown] += rest
			product[unknown] += rest
		}
		for _, m := range g.Modules {
			module[m.Name] += m.Count
		}
	}
	return []breakdown{
		{"os", "Operating system", sortedCounts(os)},
		{"cpu", "CPU", sortedCounts(cpu)},
		{"product", "Product and version", sortedCounts(product)},
		{"module", "Modules in the crashing stacks", sortedCounts(module)},
	}
}

// unknown stands for a value a dump did not have.
const unknown = "(unknown)"

func orUnknown(s string) string {
	if s == "" {
		return unknown
	}
	return s
}

// productLabel is "product version", the product breakdown's value.
func productLabel(c summary.Config) string {
	switch {
	case c.Product == "":
		return unknown
	case c.ProductVersion == "":
		return c.Product
	}
	return c.Product + " " + c.ProductVersion
}

// sortedCounts lists m, the largest count first, then by name.
func sortedCounts(m map[string]int) []summary.NameCount {
	out := []summary.NameCount{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, summary.NameCount{Name: k, Count: m[k]})
	}
	slices.SortStableFunc(out, func(a, b summary.NameCount) int { return b.Count - a.Count })
	return out
}

// where is a frame's source position or module offset.
func where(f triage.Frame) string {
	switch {
	case f.File != "" && f.Line > 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	case f.Module != "":
		return f.Module + "+" + f.Offset
	}
	return f.Offset
}

// plural is "1 dump", "2 dumps": n and the noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	switch {
	case strings.HasSuffix(noun, "y") && !strings.HasSuffix(noun, "ey"):
		noun = noun[:len(noun)-1] + "ie"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"):
		noun += "e"
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// share is n's percentage of total, to one decimal.
func share(n, total int) string {
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(max(total, 1)))
}

// readableReason spaces a Linux signal's reason as rust-minidump's JSON
// does ("SIGSEGV /SEGV_MAPERR" becomes "SIGSEGV / SEGV_MAPERR"), keeping an
// unknown code Breakpad prints in hex ("SIGSEGV / 0x00000080") rather than
// dropping it as the JSON does: two groups' codes stay apart.
func readableReason(reason string) string {
	sig, code, ok := strings.Cut(reason, " /")
	if !ok || !strings.HasPrefix(sig, "SIG") {
		return reason
	}
	if code = strings.TrimSpace(code); code == "" {
		return sig
	}
	return sig + " / " + code
}
