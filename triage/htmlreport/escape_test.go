package htmlreport

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"strings"
	"testing"
	"text/template/parse"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

// htmlTemplatePage is the page template as html/template reads it: the
// explicit escapers taken out, so that html/template chooses its own by
// each action's place in the page, and the script given as template.JS.
// It is the oracle of the hand-chosen escapers (escape.go).
func htmlTemplatePage(t testing.TB) *htmltemplate.Template {
	t.Helper()
	src := strings.NewReplacer(" | h}}", "}}", " | url}}", "}}", " | json}}", "}}", "{{.Script}}", "{{js .Script}}").Replace(pageTemplate)
	tmpl, err := htmltemplate.New("report").Funcs(htmltemplate.FuncMap{"plural": plural, "share": share, "inc": inc,
		"js": func(s string) htmltemplate.JS { return htmltemplate.JS(s) }}).Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// checkAsHTMLTemplate fails t when Write's page differs from the one
// html/template renders from the same view.
func checkAsHTMLTemplate(t testing.TB, oracle *htmltemplate.Template, s *summary.Summary, opts Options) {
	t.Helper()
	var got, want bytes.Buffer
	if err := Write(&got, s, opts); err != nil {
		t.Fatal(err)
	}
	if err := oracle.Execute(&want, newView(s, opts)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		g, w := got.String(), want.String()
		i := 0
		for i < min(len(g), len(w)) && g[i] == w[i] {
			i++
		}
		t.Fatalf("page differs from html/template's at byte %d:\n got: %q\nwant: %q", i,
			g[max(0, i-80):min(len(g), i+80)], w[max(0, i-80):min(len(w), i+80)])
	}
}

// hostileSummary has markup, quotes, '+', NUL, percent signs, schemes and
// non-ASCII in every string the page shows, and report links of each kind
// a URL can be.
func hostileSummary() (*summary.Summary, Options) {
	const h = "<b>&amp;\"'+\x00 %41%4g%zz%4 (x) é\u2028 ' javascript:alert(1)"
	b := summary.NewBuilder(5)
	n := 0
	links := []string{"reports/a b+c%41'(x).json", "javascript:alert(1)", "HTTP://x/y?a=1&b=2", "mailto:a@b", "x/y:z",
		"data:text/html,<b>", "%", "%4", "a%41", "é/ü?q=\x00", h}
	for i, l := range links {
		b.Add(&triage.Result{Path: l, Status: triage.StatusOK, Signature: h + string(rune('a'+i)), CrashingThread: &n,
			CrashReason: "SIGSEGV /" + h, OS: h, CPU: h, Product: h, ProductVersion: h,
			Modules: []triage.Module{{Name: h, Version: h}},
			Frames:  []triage.Frame{{Module: h, Function: h, File: h, Line: 3, Offset: "0x1", Trust: h}}})
		b.Add(&triage.Result{Path: l + "/bad", Status: h, Error: h + "\n" + h})
	}
	s := b.Summary()
	s.Run = &summary.Run{Date: h, Version: h, Args: []string{h, h}, Inputs: []string{h}, SymbolPaths: []string{h, h},
		OutputDir: h, Parts: []summary.Run{{Date: h, Inputs: []string{h}}, {Version: h}}}
	link := func(p string) string { return strings.TrimSuffix(p, "/bad") }
	return s, Options{ReportLink: link}
}

// TestPageAsHTMLTemplate: the page is byte for byte the one html/template
// writes, on the samples, a merged run, hostile strings and links, and a
// large synthetic summary.
func TestPageAsHTMLTemplate(t *testing.T) {
	oracle := htmlTemplatePage(t)
	link := func(p string) string { return "reports/" + p[3:] + ".json" }
	checkAsHTMLTemplate(t, oracle, sampleSummary(), Options{ReportLink: link})
	checkAsHTMLTemplate(t, oracle, sampleSummary(), Options{})
	merged := sampleSummary()
	part := *merged.Run
	merged.Run = &summary.Run{Args: []string{"merge"}, Parts: []summary.Run{part, {Inputs: []string{"/e"}}}}
	checkAsHTMLTemplate(t, oracle, merged, Options{})
	checkAsHTMLTemplate(t, oracle, &summary.Summary{}, Options{})
	s, opts := hostileSummary()
	checkAsHTMLTemplate(t, oracle, s, opts)
	checkAsHTMLTemplate(t, oracle, syntheticSummary(t, 3000, 3), Options{ReportLink: func(p string) string { return "r/" + p }})
}

// TestTemplateActionsEscape: every output action of the template ends in
// one of the escapers, but the page's own script; and an action without
// one is found.
func TestTemplateActionsEscape(t *testing.T) {
	bad, actions := unescapedActions(t, pageTemplate)
	for _, b := range bad {
		t.Errorf("%s is not escaped (end it in | h, | url or | json)", b)
	}
	want := 1 // {{.Script}}
	for _, e := range []string{" | h}}", " | url}}", " | json}}"} {
		want += strings.Count(pageTemplate, e)
	}
	if actions != want {
		t.Errorf("the walk found %d output actions, the template has %d", actions, want)
	}
	mutated := strings.Replace(pageTemplate, "{{.F.Error | h}}", "{{.F.Error}}", 1)
	if bad, _ := unescapedActions(t, mutated); len(bad) != 1 || !strings.Contains(bad[0], "{{.F.Error}}") {
		t.Errorf("an unescaped {{.F.Error}} is not found: %q", bad)
	}
}

// unescapedActions parses src and returns its output actions that end in
// no escaper, and how many output actions it has.
func unescapedActions(t *testing.T, src string) (bad []string, actions int) {
	t.Helper()
	trees, err := parse.Parse("report", src, "{{", "}}", map[string]any{"plural": plural, "share": share,
		"inc": inc, "h": escapeHTML, "url": escapeURL, "json": escapeJSON}, builtins())
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return
			}
			for _, c := range n.Nodes {
				walk(c)
			}
		case *parse.ActionNode:
			if len(n.Pipe.Decl) > 0 {
				return
			}
			actions++
			last := n.Pipe.Cmds[len(n.Pipe.Cmds)-1].Args[0]
			if id, ok := last.(*parse.IdentifierNode); ok && (id.Ident == "h" || id.Ident == "url" || id.Ident == "json") {
				return
			}
			if n.String() != "{{.Script}}" {
				bad = append(bad, fmt.Sprintf("line %d: %s", n.Line, n))
			}
		case *parse.IfNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.List)
			walk(n.ElseList)
		}
	}
	for _, tree := range trees {
		walk(tree.Root)
	}
	return bad, actions
}

// builtins names text/template's built-in functions for parse.Parse,
// which only checks that a name is defined.
func builtins() map[string]any {
	m := map[string]any{}
	for _, name := range []string{"and", "or", "not", "len", "index", "slice", "print", "printf", "println",
		"eq", "ne", "lt", "le", "gt", "ge", "html", "js", "urlquery", "call"} {
		m[name] = strings.ToUpper
	}
	return m
}

func FuzzPageAsHTMLTemplate(f *testing.F) {
	f.Add("/d/a.dmp", "sig<b>", "reports/a+b%41.json", "SIGSEGV /x", "err\x00'\"")
	f.Add("x", "y", "javascript:x", "", "")
	oracle := htmlTemplatePage(f)
	f.Fuzz(func(t *testing.T, path, sig, link, reason, errText string) {
		b := summary.NewBuilder(2)
		n := 0
		b.Add(&triage.Result{Path: path, Status: triage.StatusOK, Signature: sig, CrashingThread: &n, CrashReason: reason,
			OS: reason, Modules: []triage.Module{{Name: sig, Version: reason}},
			Frames: []triage.Frame{{Module: sig, Function: reason, Offset: errText, Trust: "context"}}})
		b.Add(&triage.Result{Path: path + "x", Status: triage.StatusInvalid, Error: errText})
		s := b.Summary()
		s.Run = &summary.Run{Date: errText, Args: []string{path, sig}, OutputDir: link}
		checkAsHTMLTemplate(t, oracle, s, Options{ReportLink: func(string) string { return link }})
	})
}
