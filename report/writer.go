package report

import (
	"fmt"
	"io"
	"strconv"
)

// printer writes formatted text and keeps the first write error, so the
// printing code reads like Breakpad's sequence of printf calls. The hot
// lines (frames, registers, modules) are built in buf with the append
// helpers below instead of fmt, which boxes every argument.
type printer struct {
	w   io.Writer
	err error
	buf []byte // scratch for the line being built; reused
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

// write writes b, which is usually p.buf: p keeps it for the next line.
func (p *printer) write(b []byte) {
	if p.err == nil {
		_, p.err = p.w.Write(b)
	}
	p.buf = b[:0]
}

// appendHex appends v as printf's %0*x: lower-case hex digits, zero-padded
// to width.
func appendHex(b []byte, v uint64, width int) []byte {
	var d [16]byte
	s := strconv.AppendUint(d[:0], v, 16)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// appendPadded appends s as printf's %*s: right-aligned in width columns.
func appendPadded(b []byte, s string, width int) []byte {
	for i := len(s); i < width; i++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}
