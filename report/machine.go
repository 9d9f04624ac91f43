package report

import (
	"io"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
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
	return writeMachine(w, newTextProcess(st))
}

func writeMachine(w io.Writer, p *textProcess) error {
	pr := &printer{w: w}
	for _, line := range machineHeaderLines(p) {
		pr.puts(line)
		pr.puts("\n")
	}
	pr.puts("\n")
	req := p.RequestingThread
	if req >= len(p.Threads) {
		req = -1
	}
	if req >= 0 {
		writeStackMachine(pr, req, &p.Threads[req])
	}
	for i := range p.Threads {
		if i != req {
			writeStackMachine(pr, i, &p.Threads[i])
		}
	}
	return pr.err
}

// machineHeaderLines returns the -m lines before the blank line: OS, CPU,
// GPU, Crash and one Module line per module.
func machineHeaderLines(p *textProcess) []string {
	s := stripSeparator
	lines := []string{
		"OS|" + s(p.OS) + "|" + s(p.OSVersion),
		"CPU|" + s(p.CPU) + "|" + s(p.CPUInfo) + "|" + itoa(p.CPUCount),
		"GPU|" + s(p.GLVersion) + "|" + s(p.GLVendor) + "|" + s(p.GLRenderer),
	}
	crash := "Crash|"
	switch {
	case p.Crashed:
		crash += s(p.CrashReason) + sprintf("|0x%x|", p.CrashAddress)
	case p.Assertion != "":
		// Breakpad prints the assertion instead of the unhelpful "No crash".
		crash += s(p.Assertion) + "||"
	default:
		crash += "No crash||"
	}
	if p.RequestingThread >= 0 && p.RequestingThread < len(p.Threads) {
		crash += itoa(p.RequestingThread)
	}
	lines = append(lines, crash)
	if p.HaveModules {
		mainBase, haveMain := p.mainBase()
		for i := range p.Modules {
			m := &p.Modules[i]
			main := "0"
			if haveMain && m.Base == mainBase {
				main = "1"
			}
			lines = append(lines, sprintf("Module|%s|%s|%s|%s|0x%08x|0x%08x|%s",
				s(textBase(m.CodeFile)), s(m.Version), s(textBase(m.DebugFile)), s(m.DebugID),
				m.Base, m.Base+m.Size-1, main))
		}
	}
	return lines
}

func writeStackMachine(pr *printer, thread int, t *textThread) {
	for i := range t.Frames {
		f := &t.Frames[i]
		pr.printf("%d|%d|", thread, i)
		addr := f.ReturnAddress
		switch {
		case f.Module == nil:
			pr.printf("||||0x%x", addr)
		case f.Function == "":
			pr.printf("%s||||0x%x", stripSeparator(textBase(f.Module.CodeFile)), addr-f.Module.Base)
		case f.SourceFile != "":
			pr.printf("%s|%s|%s|%d|0x%x", stripSeparator(textBase(f.Module.CodeFile)),
				stripSeparator(f.Function), stripSeparator(textsafe.Escape(f.SourceFile)), f.SourceLine, addr-f.SourceLineBase)
		default:
			pr.printf("%s|%s|||0x%x", stripSeparator(textBase(f.Module.CodeFile)),
				stripSeparator(f.Function), addr-f.FunctionBase)
		}
		pr.puts("\n")
	}
}
