package htmlreport

import (
	"maps"
	"slices"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

// escaped returns a copy of s whose strings from dumps, symbol files and
// paths are escaped as the text outputs escape them (textsafe): html/template
// escapes markup but passes control bytes and invalid UTF-8 through, and
// the page must carry neither (a path with an escape sequence shows as
// \x1b). Error texts keep their line breaks.
func escaped(s *summary.Summary) *summary.Summary {
	e := textsafe.Escape
	out := *s
	out.Failures = slices.Clone(s.Failures)
	for i := range out.Failures {
		f := &out.Failures[i]
		f.Path, f.Status, f.Error = e(f.Path), e(f.Status), textsafe.EscapeText(f.Error)
	}
	out.Statuses = map[string]int{}
	for k, v := range s.Statuses {
		out.Statuses[e(k)] += v
	}
	out.Groups = slices.Clone(s.Groups)
	for i := range out.Groups {
		g := &out.Groups[i]
		g.Signature = e(g.Signature)
		g.Examples = escapeAll(g.Examples)
		g.CrashReasons = slices.Clone(g.CrashReasons)
		for j := range g.CrashReasons {
			g.CrashReasons[j].Name = e(g.CrashReasons[j].Name)
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
