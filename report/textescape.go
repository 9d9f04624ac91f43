package report

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// The text printers (human, -m, -b, -s, -d) print strings that come from
// the dump (module, PDB and OS names, the crash reason, the GPU line) and
// from symbol files (function and file names). A hostile one could hold
// terminal escapes or a newline that forges a line, so every such string
// goes through textsafe.Escape (esc) as it is printed or, for paths, when
// its base name is printed (textBase), because an escape would otherwise
// add a backslash that symfile.BaseName takes for a separator. On
// printable text both are the identity: the output stays Breakpad's byte
// for byte. The JSON report needs none of it (JSON escapes control bytes).

// esc is s made safe for a terminal (textsafe.Escape).
func esc(s string) string { return textsafe.Escape(s) }

// textBase is the base name of path (symfile.BaseName, Breakpad's
// PathnameStripper) for the text printers: escaped.
func textBase(path string) string { return textsafe.Escape(symfile.BaseName(path)) }
