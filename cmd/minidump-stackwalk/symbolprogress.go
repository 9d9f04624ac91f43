package main

// Symbol server downloads around a walk: the dump's modules are fetched
// ahead of it, --symbols-download-jobs at a time, and large downloads show
// a progress line on a terminal.

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	stackwalk "github.com/minidump-stackwalk/minidump-stackwalk"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/symsrv"
)

// prefetcher is a supplier that can look modules up ahead of a walk
// (symfile's ChainSupplier and symsrv's Supplier).
type prefetcher interface {
	Prefetch(mods []symfile.ModuleKey)
}

// walkSymbols returns the supplier for walking d and the function to call
// once the walk is done. With symbol servers and more than one download
// job, the modules of d's module list are fetched first, concurrently:
// the walk then finds every answer ready, the same answers it would have
// got asking one module at a time. Diagnostics written meanwhile go to
// stderr through the progress line, which they clear first.
func (o *options) walkSymbols(d *stackwalk.Dump, stderr io.Writer) (symfile.Supplier, func()) {
	prog := newDownloadProgress(stderr, o.showProgress(stderr), o.compat.noColor)
	var report func(symsrv.DownloadProgress)
	if prog.enabled {
		report = prog.report
	}
	sup := o.symbolSupplierWith(prog, report)
	_, urls := splitSymbolPaths(o.symbolPaths)
	if p, ok := sup.(prefetcher); ok && len(urls) > 0 && o.symbolServer.jobs > 1 && d.Minidump != nil {
		if mods, _ := d.Minidump.Modules(); len(mods) > 0 {
			keys := make([]symfile.ModuleKey, len(mods))
			for i, m := range mods {
				keys[i] = symfile.ModuleKey{CodeFile: m.Name, CodeID: m.CodeID, DebugFile: m.DebugFile, DebugID: m.DebugID}
			}
			p.Prefetch(keys)
		}
	}
	return sup, prog.finish
}

// terminal is a writer that says whether it is a terminal; tests give one
// to run() in place of a pseudo-terminal.
type terminal interface{ IsTerminal() bool }

// showProgress reports whether download progress is shown on stderr: only
// on a terminal that can redraw a line, and never with --no-interactive.
func (o *options) showProgress(stderr io.Writer) bool {
	if o.compat.noInteractive || os.Getenv("TERM") == "dumb" {
		return false
	}
	switch t := stderr.(type) {
	case terminal:
		return t.IsTerminal()
	case *os.File:
		return isTTY(t) // tty_*.go
	}
	return false
}

// progressMinBytes: downloads smaller than this show no progress; they
// are over before a reader could follow.
const progressMinBytes = 1 << 20

// progressEvery bounds how often the line is redrawn.
const progressEvery = 100 * time.Millisecond

// downloadProgress draws, on one line of stderr redrawn with \r, the
// largest download in progress: its file, bytes so far and in all, and
// rate, with how many others run beside it. It is also the writer of
// the diagnostics printed meanwhile: each write clears the line first.
type downloadProgress struct {
	w       io.Writer
	enabled bool
	noColor bool // clear with spaces, not the erase-line escape

	mu       sync.Mutex
	active   map[string]*download // by URL
	shown    int                  // width of the line on screen, 0: none
	lastDraw time.Time
	finished bool
}

type download struct {
	p     symsrv.DownloadProgress
	start time.Time
}

func newDownloadProgress(w io.Writer, enabled, noColor bool) *downloadProgress {
	return &downloadProgress{w: w, enabled: enabled, noColor: noColor, active: map[string]*download{}}
}

// report takes the downloads' progress reports (fetch.Config's Progress).
func (d *downloadProgress) report(p symsrv.DownloadProgress) {
	if !d.enabled {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.finished {
		return
	}
	if p.Done {
		delete(d.active, p.URL)
	} else if a := d.active[p.URL]; a != nil {
		a.p = p
	} else {
		d.active[p.URL] = &download{p: p, start: time.Now()}
	}
	now := time.Now()
	if !p.Done && now.Sub(d.lastDraw) < progressEvery {
		return
	}
	d.lastDraw = now
	d.draw(now)
}

// draw shows the line for the active downloads, or clears it when none is
// large enough.
func (d *downloadProgress) draw(now time.Time) {
	var big *download
	others := 0
	for _, a := range d.active {
		if max(a.p.Size, a.p.Received) < progressMinBytes {
			continue
		}
		if big == nil || a.p.Size > big.p.Size || (a.p.Size == big.p.Size && a.p.URL < big.p.URL) {
			big = a
		}
		others++
	}
	if big == nil {
		d.clear()
		return
	}
	line := progressLine(big, now, others-1)
	d.clear()
	fmt.Fprint(d.w, line)
	d.shown = len(line)
}

// progressLine renders one download, for example
// "downloading xul.sym: 12.0/310.5 MiB, 4.1 MiB/s (+2 more)".
func progressLine(a *download, now time.Time, others int) string {
	const mib = 1 << 20
	name := a.p.File
	if len(name) > 40 {
		name = name[:37] + "..."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "downloading %s: %.1f", name, float64(a.p.Received)/mib)
	if a.p.Size >= 0 {
		fmt.Fprintf(&b, "/%.1f", float64(a.p.Size)/mib)
	}
	b.WriteString(" MiB")
	if secs := now.Sub(a.start).Seconds(); secs > 0 {
		fmt.Fprintf(&b, ", %.1f MiB/s", float64(a.p.Received)/mib/secs)
	}
	if others > 0 {
		fmt.Fprintf(&b, " (+%d more)", others)
	}
	return b.String()
}

// clear erases the line on screen, if any.
func (d *downloadProgress) clear() {
	if d.shown == 0 {
		return
	}
	if d.noColor {
		fmt.Fprintf(d.w, "\r%s\r", strings.Repeat(" ", d.shown))
	} else {
		fmt.Fprint(d.w, "\r\x1b[K")
	}
	d.shown = 0
}

// Write prints a diagnostic, on a line of its own above any progress.
func (d *downloadProgress) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clear()
	return d.w.Write(p)
}

// finish clears the line for good: the report that follows is printed on
// a clean screen.
func (d *downloadProgress) finish() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clear()
	d.finished = true
}
