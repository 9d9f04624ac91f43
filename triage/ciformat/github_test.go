package ciformat

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// command is one workflow command parsed as the Actions runner parses it
// (actions/runner ActionCommand.TryParseV2): "::name k=v,k=v::message",
// properties split at commas, then each unescaped.
type command struct {
	name  string
	props map[string]string
	msg   string
}

func parseCommands(t *testing.T, out string) []command {
	t.Helper()
	unescape := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")
	var cmds []command
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		m := regexp.MustCompile(`^::(\w+)(?: ([^:]*))?::(.*)$`).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a workflow command: %q", line)
		}
		c := command{name: m[1], props: map[string]string{}, msg: unescape.Replace(m[3])}
		if m[2] != "" {
			for _, kv := range strings.Split(m[2], ",") {
				k, v, _ := strings.Cut(kv, "=")
				c.props[k] = unescape.Replace(v)
			}
		}
		cmds = append(cmds, c)
	}
	return cmds
}

func TestAnnotations(t *testing.T) {
	cases := sampleCases(Baseline{"crash_here": true})
	// A signature with the characters the format must escape.
	c := casePath(t, cases, "dumps/win/c.dmp")
	c.Signature = "app.exe@0x10a0 | f(int, char::x) 100%"
	var buf bytes.Buffer
	if err := WriteAnnotations(&buf, cases, GitHubOptions{SourceRoot: "/build", Baselined: true}); err != nil {
		t.Fatal(err)
	}
	cmds := parseCommands(t, buf.String())
	if len(cmds) != 4 {
		t.Fatalf("%d commands, want 2 signatures + 2 unprocessed dumps:\n%s", len(cmds), buf.String())
	}
	known := cmds[0]
	if known.name != "notice" || known.props["file"] != "src/crash.cc" || known.props["line"] != "42" ||
		known.props["title"] != "Crash: crash_here" || !strings.Contains(known.msg, "\n 1  crash!main [main.cc : 7]") {
		t.Errorf("known signature: %+v", known)
	}
	fresh := cmds[1]
	if fresh.name != "error" || fresh.props["file"] != "" || fresh.props["title"] != "New crash: "+c.Signature ||
		!strings.HasPrefix(fresh.msg, c.Signature+" in 1 dump (EXCEPTION_ACCESS_VIOLATION_READ)") {
		t.Errorf("new signature: %+v", fresh)
	}
	if c := cmds[3]; c.name != "error" || c.props["title"] != "Dump not processed: unreadable" || c.msg != "gone.dmp: open gone.dmp: permission denied" {
		t.Errorf("unreadable dump: %+v", c)
	}
}

func TestAnnotationsBounded(t *testing.T) {
	var cases []Case
	for i := range 200 {
		cases = append(cases, Case{Path: strings.Repeat("x", i+1), Status: "invalid", Error: "bad"})
	}
	var buf bytes.Buffer
	if err := WriteAnnotations(&buf, cases, GitHubOptions{}); err != nil {
		t.Fatal(err)
	}
	cmds := parseCommands(t, buf.String())
	if len(cmds) != maxAnnotations || cmds[len(cmds)-1].msg != "151 more annotations left out" {
		t.Errorf("%d commands, last %+v", len(cmds), cmds[len(cmds)-1])
	}
}

func TestMarkdown(t *testing.T) {
	cases := sampleCases(Baseline{"crash_here": true})
	casePath(t, cases, "dumps/win/c.dmp").Signature = "a|b <script>"
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, cases, GitHubOptions{Baselined: true}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, "### minidump-stackwalk: 6 dumps, 3 crashes in 2 signatures, 1 new, 2 not processed\n") {
		t.Errorf("heading:\n%s", out)
	}
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| Signature") && !strings.HasPrefix(l, "| ---") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 2 {
		t.Fatalf("%d table rows, want 2:\n%s", len(rows), out)
	}
	// Every row has the header's 5 cells: an escaped | does not split one.
	for _, r := range rows {
		if n := len(regexp.MustCompile(`[^\\]\|`).FindAllString(r, -1)); n != 5 {
			t.Errorf("row with %d cell bounds, want 5: %s", n, r)
		}
	}
	if !strings.Contains(rows[0], "| crash\\_here | 2 | SIGSEGV /SEGV\\_MAPERR | crash!crash\\_here(int\\*) \\[crash.cc : 42\\] |") ||
		!strings.Contains(rows[1], "🆕 **a\\|b &lt;script&gt;**") || strings.Contains(out, "<script>") {
		t.Errorf("rows:\n%s", strings.Join(rows, "\n"))
	}
	if !strings.Contains(out, "- gone.dmp: unreadable: open gone.dmp: permission denied") {
		t.Errorf("unprocessed dumps missing:\n%s", out)
	}
}

func casePath(t *testing.T, cases []Case, path string) *Case {
	t.Helper()
	for i := range cases {
		if cases[i].Path == path {
			return &cases[i]
		}
	}
	t.Fatalf("no case %s", path)
	return nil
}
