package htmlreport

import (
	"maps"
	"slices"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

// escaped returns a copy of s whose strings from dumps, symbol files and
// paths are escaped as the text outputs escape them (textsafe): the page's
// escapers (escape.go), as html/template's, escape markup but pass control
// bytes and invalid UTF-8 through, and the page must carry neither (a path
// with an escape sequence shows as \x1b). Error texts keep their line
// breaks.
func escaped(s *summary.Summary) *summary.Summary {
	e := textsafe.Escape
	out := *s
	out.Failures = slices.Clone(s.Failures)
	for i := range out.Failures {
		f := &out.Failures[i]
		f.Path, f.Status, f.Error = e(f.Path), e(f.Status), textsafe.EscapeText(f.Error)
	}
	out.Statuses = escapeKeys(s.Statuses)
	out.Skipped = escapeKeys(s.Skipped)
	if s.Run != nil {
		r := escapeRun(*s.Run)
		out.Run = &r
	}
	out.Groups = slices.Clone(s.Groups)
	for i := range out.Groups {
		g := &out.Groups[i]
		g.Signature = e(g.Signature)
		g.Examples = escapeAll(g.Examples)
		g.CrashReasons = readableReasons(g.CrashReasons)
		g.Configs = slices.Clone(g.Configs)
		for j := range g.Configs {
			c := &g.Configs[j]
			c.OS, c.CPU, c.Product, c.ProductVersion = e(c.OS), e(c.CPU), e(c.Product), e(c.ProductVersion)
		}
		g.Modules = slices.Clone(g.Modules)
		for j := range g.Modules {
			m := &g.Modules[j]
			m.Name, m.Version = e(m.Name), e(m.Version)
		}
	}
	out.Stacks = maps.Clone(s.Stacks)
	for id, frames := range out.Stacks {
		frames = slices.Clone(frames)
		for j := range frames {
			frames[j] = escapeFrame(frames[j])
		}
		out.Stacks[id] = frames
	}
	return &out
}

func escapeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = textsafe.Escape(s)
	}
	return out
}

func escapeFrame(f triage.Frame) triage.Frame {
	e := textsafe.Escape
	f.Module, f.Function, f.File, f.Offset, f.Trust = e(f.Module), e(f.Function), e(f.File), e(f.Offset), e(f.Trust)
	return f
}

func escapeKeys(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[textsafe.Escape(k)] += v
	}
	return out
}

// readableReasons escapes the reasons and spaces them as readableReason
// does, adding the counts of reasons that become the same.
func readableReasons(rs []summary.NameCount) []summary.NameCount {
	counts := map[string]int{}
	for _, r := range rs {
		counts[readableReason(textsafe.Escape(r.Name))] += r.Count
	}
	return sortedCounts(counts)
}

func escapeRun(r summary.Run) summary.Run {
	e := textsafe.Escape
	r.Date, r.Version, r.OutputDir = e(r.Date), e(r.Version), e(r.OutputDir)
	r.Args, r.Inputs, r.SymbolPaths = escapeAll(r.Args), escapeAll(r.Inputs), escapeAll(r.SymbolPaths)
	parts := make([]summary.Run, len(r.Parts))
	for i, p := range r.Parts {
		parts[i] = escapeRun(p)
	}
	r.Parts = parts
	return r
}
