package report

import (
	"fmt"
	"io"
)

// printer writes formatted text and keeps the first write error, so the
// printing code reads like Breakpad's sequence of printf calls.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) puts(s string) {
	if p.err == nil {
		_, p.err = io.WriteString(p.w, s)
	}
}
