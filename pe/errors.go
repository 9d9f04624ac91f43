package pe

import "fmt"

// FormatError reports a malformed image: what was being read, the file
// offset (or, where the data has none, the RVA) and what was wrong.
type FormatError struct {
	What   string // "optional header", "export directory", "UNWIND_INFO", ...
	Offset int64  // file offset, or RVA when IsRVA
	IsRVA  bool
	Msg    string
}

func (e *FormatError) Error() string {
	where := "offset"
	if e.IsRVA {
		where = "rva"
	}
	return fmt.Sprintf("pe: %s at %s %#x: %s", e.What, where, e.Offset, e.Msg)
}

func offErr(what string, off int64, format string, args ...any) *FormatError {
	return &FormatError{What: what, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func rvaErr(what string, rva uint32, format string, args ...any) *FormatError {
	return &FormatError{What: what, Offset: int64(rva), IsRVA: true, Msg: fmt.Sprintf(format, args...)}
}
