package symsrv

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// format is what a downloaded file must be before it enters the cache:
// how its first bytes begin (one of heads), and how the partial file is
// opened and checked (open's error keeps it out of the cache).
type format struct {
	what  string
	heads [][]byte
	open  func(path, target string) (*symfile.File, error)
}

// symFormat is a Breakpad symbol file: a MODULE line, and it parses.
var symFormat = &format{
	what:  "a Breakpad symbol file (no MODULE line)",
	heads: [][]byte{moduleTag},
	open:  func(path, _ string) (*symfile.File, error) { return openCorrupt(nil, path) },
}
