package report

import (
	"io"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
)

// stripSeparator removes '|' and '\n', which would break the machine format.
func stripSeparator(s string) string {
	if !strings.ContainsAny(s, "|\n") {
		return s
	}
	return strings.NewReplacer("|", "", "\n", "").Replace(s)
}

// WriteMachine prints p in minidump_stackwalk's -m format:
//
//	OS|name|version
//	CPU|name|info|count
//	GPU|version|vendor|renderer
//	Crash|reason|address|requesting thread
//	Module|code file|version|debug file|debug id|base|max|main
//	(blank line)
//	thread|frame|module|function|source file|line|offset
func WriteMachine(w io.Writer, st *processor.ProcessState) error {
	return writeMachine(w, newTextView(st))
}

func writeMachine(w io.Writer, v *textView) error {
	pr := &printer{w: w}
	for _, line := range machineHeaderLines(v) {
		pr.puts(line)
		pr.puts("\n")
	}
	pr.puts("\n")
	req := v.requesting
	if req >= 0 {
		writeStackMachine(pr, v, req, v.threads[req])
	}
	for i, t := range v.threads {
		if i != req {
			writeStackMachine(pr, v, i, t)
		}
	}
	return pr.err
}

// machineHeaderLines returns the -m lines before the blank line: OS, CPU,
// GPU, Crash and one Module line per module.
func machineHeaderLines(v *textView) []string {
	st, sys := v.st, v.system()
	s := func(field string) string { return stripSeparator(esc(field)) }
	lines := []string{
		"OS|" + s(sys.OS) + "|" + s(sys.OSVersion),
		"CPU|" + s(sys.CPU) + "|" + s(sys.CPUInfo) + "|" + itoa(sys.CPUCount),
		"GPU|" + s(st.GPU.Version) + "|" + s(st.GPU.Vendor) + "|" + s(st.GPU.Renderer),
	}
	crash := "Crash|"
	switch {
	case st.Crashed:
		crash += s(st.CrashReason) + sprintf("|0x%x|", st.CrashAddress)
	case st.Assertion != "":
		// Breakpad prints the assertion instead of the unhelpful "No crash".
		crash += s(st.Assertion) + "||"
	default:
		crash += "No crash||"
	}
	if v.requesting >= 0 {
		crash += itoa(v.requesting)
	}
	lines = append(lines, crash)
	if st.HaveModules {
		mainBase, haveMain := v.mainBase()
		v.modules(func(m *processor.Module) {
			main := "0"
			if haveMain && m.Base == mainBase {
				main = "1"
			}
			lines = append(lines, sprintf("Module|%s|%s|%s|%s|0x%08x|0x%08x|%s",
				stripSeparator(textBase(m.CodeFile)), s(m.Version), stripSeparator(textBase(m.DebugFile)), s(m.DebugID),
				m.Base, m.Base+m.Size-1, main))
		})
	}
	return lines
}

func writeStackMachine(pr *printer, v *textView, thread int, t *processor.Thread) {
	for i, f := range t.Frames {
		pr.printf("%d|%d|", thread, i)
		addr := f.ReturnAddress()
		m := v.frameModule(f)
		switch {
		case m == nil:
			pr.printf("||||0x%x", addr)
		case f.Function == "":
			pr.printf("%s||||0x%x", stripSeparator(textBase(m.CodeFile)), addr-m.Base)
		case f.SourceFile != "":
			pr.printf("%s|%s|%s|%d|0x%x", stripSeparator(textBase(m.CodeFile)),
				stripSeparator(esc(f.Function)), stripSeparator(esc(f.SourceFile)), f.SourceLine, addr-f.SourceLineBase)
		default:
			pr.printf("%s|%s|||0x%x", stripSeparator(textBase(m.CodeFile)),
				stripSeparator(esc(f.Function)), addr-f.FunctionBase)
		}
		pr.puts("\n")
	}
}
