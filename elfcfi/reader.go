package elfcfi

import "github.com/minidump-stackwalk/minidump-stackwalk/internal/dwarfbuf"

// buf is the bounded cursor every parser of this package reads with; the
// first failed read sticks in its Err, which callers turn into a
// FormatError with the offset.
type buf = dwarfbuf.Buf
