package machofile

import "fmt"

// FormatError reports a malformed Mach-O file: the byte offset in the file
// (of the architecture's slice, for a fat file) and what was wrong there.
type FormatError struct {
	Offset int64
	Msg    string
	Err    error // the underlying error, when debug/macho found it
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("Mach-O: offset %#x: %s", e.Offset, e.Msg)
}

func (e *FormatError) Unwrap() error { return e.Err }

func formatErr(off int64, format string, args ...any) *FormatError {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}
