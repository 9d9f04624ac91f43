package main

import (
	"fmt"
	"io"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
)

// logf prints a diagnostic on w (stderr): the format is ours, and every
// string or error argument, which may hold a path, a module name or a
// symbol name, is escaped (textsafe.Escape), so that a hostile name
// neither drives the terminal nor forges a line of the log (issue 26.12).
func logf(w io.Writer, format string, args ...any) {
	for i, a := range args {
		switch v := a.(type) {
		case string:
			args[i] = textsafe.Escape(v)
		case error:
			args[i] = textsafe.Escape(v.Error())
		case fmt.Stringer:
			args[i] = textsafe.Escape(v.String())
		}
	}
	fmt.Fprintf(w, format, args...)
}
