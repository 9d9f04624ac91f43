package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progress shows done/total, the rate, the time left and the failures so
// far on one rewritten stderr line, when stderr is a terminal (or
// --progress always); otherwise it prints nothing, so logs stay clean.
type progress struct {
	w       io.Writer
	enabled bool
	total   int
	start   time.Time
	every   time.Duration

	mu     sync.Mutex
	n, bad int
	last   time.Time
	shown  bool
}

func newProgress(w io.Writer, total int, mode string) *progress {
	p := &progress{w: w, total: total, start: time.Now(), every: 200 * time.Millisecond}
	switch mode {
	case "always":
		p.enabled = true
	case "auto":
		p.enabled = isTerminal(w)
	}
	return p
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// done counts one finished input.
func (p *progress) done(ok bool) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if !ok {
		p.bad++
	}
	if now := time.Now(); now.Sub(p.last) >= p.every || p.n == p.total {
		p.last = now
		fmt.Fprintf(p.w, "\r\x1b[K%s", p.line(now))
		p.shown = true
	}
}

// println prints a line of its own on the progress's writer, above the
// progress line when it is shown.
func (p *progress) println(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.shown {
		fmt.Fprintln(p.w, line)
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s\n%s", line, p.line(time.Now()))
}

// line renders the progress line at time now.
func (p *progress) line(now time.Time) string {
	elapsed := now.Sub(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.n) / elapsed
	}
	left := "?"
	if rate > 0 {
		left = (time.Duration(float64(p.total-p.n)/rate) * time.Second).Round(time.Second).String()
	}
	return fmt.Sprintf("%d/%d dumps, %.1f/s, %s left, %d failed", p.n, p.total, rate, left, p.bad)
}

// finish ends the progress line.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
