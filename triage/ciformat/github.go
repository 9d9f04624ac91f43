package ciformat

import (
	"fmt"
	"io"
	"strings"
)

// maxAnnotations bounds the workflow commands of a run (GitHub shows at
// most 10 error annotations per step anyway); the rest are counted in one
// last notice.
const maxAnnotations = 50

// GitHubOptions shape the GitHub Actions outputs.
type GitHubOptions struct {
	// SourceRoot, when set, is cut from the front of source paths so that
	// annotations land on the repository's files.
	SourceRoot string
	Baselined  bool // a baseline was given: known signatures are notices
}

// WriteAnnotations writes GitHub Actions workflow commands: an error per
// crash signature (with a baseline: per new signature, and a notice per
// known one), at the innermost frame with a source file, and an error per
// dump that could not be processed.
func WriteAnnotations(w io.Writer, cases []Case, opt GitHubOptions) error {
	var lines []string
	for _, g := range groups(cases) {
		c := &g[0]
		kind := "error"
		if opt.Baselined && !c.New {
			kind = "notice"
		}
		props := []string{}
		for i := range c.Frames {
			if f := &c.Frames[i]; f.File != "" {
				props = append(props, "file="+escapeProperty(relativePath(f.File, opt.SourceRoot)))
				if f.Line > 0 {
					props = append(props, fmt.Sprintf("line=%d", f.Line))
				}
				break
			}
		}
		title := "Crash"
		if c.New {
			title = "New crash"
		}
		props = append(props, "title="+escapeProperty(title+": "+c.Signature))
		lines = append(lines, fmt.Sprintf("::%s %s::%s", kind, strings.Join(props, ","), escapeData(groupText(g))))
	}
	for i := range cases {
		if c := &cases[i]; c.Broken() {
			lines = append(lines, fmt.Sprintf("::error title=%s::%s", escapeProperty("Dump not processed: "+c.Status),
				escapeData(c.Path+": "+c.Error)))
		}
	}
	if len(lines) > maxAnnotations {
		more := len(lines) - maxAnnotations + 1
		lines = append(lines[:maxAnnotations-1], fmt.Sprintf("::notice::%d more annotations left out", more))
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// groupText is an annotation's message: count, reasons, an example and the
// representative stack's top frames.
func groupText(g []Case) string {
	c := &g[0]
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %d dump%s", c.Signature, len(g), plural(len(g)))
	if c.CrashReason != "" {
		fmt.Fprintf(&b, " (%s)", c.CrashReason)
	}
	fmt.Fprintf(&b, ", e.g. %s\n", c.Path)
	for i := range c.Frames {
		fmt.Fprintf(&b, "%2d  %s\n", i, frameText(&c.Frames[i]))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// WriteMarkdown writes the job summary: totals, a table of the signatures
// (new ones marked when a baseline was given) and the dumps that could not
// be processed.
func WriteMarkdown(w io.Writer, cases []Case, opt GitHubOptions) error {
	gs := groups(cases)
	var b strings.Builder
	crashes, news, broken := 0, 0, 0
	for i := range cases {
		switch c := &cases[i]; {
		case c.Failed():
			crashes++
			if c.New {
				news++
			}
		case c.Broken():
			broken++
		}
	}
	fmt.Fprintf(&b, "### minidump-stackwalk: %d dump%s, %d crash%s in %d signature%s",
		len(cases), plural(len(cases)), crashes, pluralES(crashes), len(gs), plural(len(gs)))
	if opt.Baselined {
		fmt.Fprintf(&b, ", %d new", news)
	}
	fmt.Fprintf(&b, ", %d not processed\n\n", broken)
	if len(gs) > 0 {
		b.WriteString("| Signature | Dumps | Crash reason | Top frame | Example |\n| --- | ---: | --- | --- | --- |\n")
		for _, g := range gs {
			c := &g[0]
			sig := markdownCell(c.Signature)
			if c.New {
				sig = "🆕 **" + sig + "**"
			}
			top := ""
			if len(c.Frames) > 0 {
				top = frameText(&c.Frames[0])
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", sig, len(g), markdownCell(c.CrashReason),
				markdownCell(top), markdownCell(c.Path))
		}
		b.WriteString("\n")
	}
	if broken > 0 {
		b.WriteString("Not processed:\n\n")
		for i := range cases {
			if c := &cases[i]; c.Broken() {
				fmt.Fprintf(&b, "- %s: %s: %s\n", markdownCell(c.Path), c.Status, markdownCell(firstLine(c.Error)))
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// escapeData and escapeProperty escape as the runner's workflow command
// parser unescapes (actions/toolkit's command.ts).
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// markdownCell keeps a value on one table row, shown as text: no HTML, no
// column break, no line break.
func markdownCell(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "\\|", "\n", " ", "\r", " ", "`", "\\`",
		"*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]").Replace(s)
}

func relativePath(p, root string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	root = strings.TrimSuffix(strings.ReplaceAll(root, `\`, "/"), "/")
	if root != "" && strings.HasPrefix(p, root+"/") {
		return p[len(root)+1:]
	}
	return p
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func pluralES(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}
