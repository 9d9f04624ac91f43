package elfcfi

import "fmt"

// FormatError reports malformed unwind data: the section, the byte offset
// in it and what was wrong there.
type FormatError struct {
	Section string
	Offset  uint64
	Msg     string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: offset %#x: %s", e.Section, e.Offset, e.Msg)
}

func formatErr(section string, off uint64, format string, args ...any) *FormatError {
	return &FormatError{Section: section, Offset: off, Msg: fmt.Sprintf(format, args...)}
}
