package report

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// The text printers (human, -m, -b, -s, -d) print strings that come from
// the dump (module, PDB and OS names, the crash reason, the GPU line) and
// from symbol files (function and file names). A hostile one could hold
// terminal escapes or a newline that forges a line, so every such string
// goes through textsafe.Escape: in the view (escapeStrings) or, for paths,
// when its base name is printed (textBase), because an escape would
// otherwise add a backslash that symfile.BaseName takes for a separator. On
// printable text both are the identity: the output stays Breakpad's byte
// for byte. The JSON report needs none of it (JSON escapes control bytes).

// escapeStrings escapes the view's strings that are printed whole.
func (p *textProcess) escapeStrings() {
	e := textsafe.Escape
	p.OS, p.OSVersion, p.CPU, p.CPUInfo = e(p.OS), e(p.OSVersion), e(p.CPU), e(p.CPUInfo)
	p.GLVersion, p.GLVendor, p.GLRenderer = e(p.GLVersion), e(p.GLVendor), e(p.GLRenderer)
	p.CrashReason, p.Assertion = e(p.CrashReason), e(p.Assertion)
	for i := range p.Modules {
		m := &p.Modules[i]
		m.Version, m.DebugID = e(m.Version), e(m.DebugID)
	}
	for i := range p.Threads {
		for j := range p.Threads[i].Frames {
			f := &p.Threads[i].Frames[j]
			f.Function = e(f.Function)
		}
	}
	if sym := p.Symbolize; sym != nil {
		p.Symbolize = func(addr uint64) []sourceInfo {
			out := sym(addr)
			for i := range out {
				out[i].Function = e(out[i].Function)
			}
			return out
		}
	}
}

// textBase is the base name of path (symfile.BaseName, Breakpad's
// PathnameStripper) for the text printers: escaped.
func textBase(path string) string { return textsafe.Escape(symfile.BaseName(path)) }
