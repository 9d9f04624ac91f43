package htmlreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

//go:embed report.html.tmpl
var pageTemplate string

// page is the parsed template, parsed on first use (a parse error is a
// build mistake that the tests catch).
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{"where": where}).Parse(pageTemplate))
})

// view is what the template reads.
type view struct {
	S        *summary.Summary
	Grouped  int
	Groups   []groupView
	Statuses []statusView
}

type groupView struct {
	Rank     int
	G        summary.Group
	Share    float64 // percent of the grouped dumps
	TopFrame string
	Stacks   []stackView
}

type stackView struct {
	ID     string
	Count  int
	Frames []triage.Frame
}

type statusView struct {
	Status string
	Count  int
}

// Write renders s as the HTML report.
func Write(w io.Writer, s *summary.Summary) error {
	s = escaped(s) // no control bytes from dumps or paths in the page (safe.go)
	v := view{S: s}
	for _, g := range s.Groups {
		v.Grouped += g.Count
	}
	for i, g := range s.Groups {
		gv := groupView{Rank: i + 1, G: g, Share: 100 * float64(g.Count) / float64(max(v.Grouped, 1))}
		for _, st := range g.Stacks {
			gv.Stacks = append(gv.Stacks, stackView{st.ID, st.Count, s.Stacks[st.ID]})
		}
		v.Groups = append(v.Groups, gv)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Statuses)) {
		v.Statuses = append(v.Statuses, statusView{k, s.Statuses[k]})
	}
	return page().Execute(w, v)
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
