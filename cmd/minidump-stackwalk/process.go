package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	stackwalk "github.com/minidump-stackwalk/minidump-stackwalk"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/mapfault"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/report"
)

// input is a processed dump, handed to the printers.
type input struct {
	Path        string
	SymbolPaths []string
	State       *processor.ProcessState
	// NoText is set when the dump could not be processed and only the JSON
	// report's status document is printed, and when a CI format (-f junit,
	// sarif) prints in place of the text report.
	NoText bool
}

// processorOptions returns the processing options the flags select.
func (o *options) processorOptions() processor.Options {
	opts := processor.Options{Trace: o.trace, Context: o.walkCtx, Workers: o.walkWorkers}
	if o.breakpadCompat {
		opts.Mode = processor.ModeBreakpad
	}
	opts.Native = o.debuginfo.native(o) // the modules' ELF files (debuginfo.go)
	if o.readBuf != nil {
		opts.Walks = &o.readBuf.walks // a batch worker's, reused dump after dump
	}
	return opts
}

// process reads and processes the dump named in o, prints it and returns the
// exit status. A memory-mapped dump or symbol file truncated while it is
// read (package mapfault) ends it with an error naming the file and status
// 1, during the printing too, which reads the dump's stack memory.
func process(o *options, group flagGroup, stdout, stderr io.Writer) int {
	status, err := processGuarded(o, group, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "minidump-stackwalk: %s\n", textsafe.Escape(err.Error()))
		return exitDump
	}
	return status
}

// processGuarded is processDump with faults on mappings returned as err.
func processGuarded(o *options, group flagGroup, stdout, stderr io.Writer) (status int, err error) {
	defer mapfault.Enable()()
	defer mapfault.Recover(&err, o.dumpPath)
	return processDump(o, group, stdout, stderr), nil
}

// processDump is process without the guard.
func processDump(o *options, group flagGroup, stdout, stderr io.Writer) int {
	if status, ok := processRawDump(o, group, stdout, stderr); ok { // --dump (dumpflag.go)
		return status
	}
	d, err := stackwalk.OpenWith(o.dumpPath, stackwalk.Options{Sysroot: o.sysroot, Stdin: o.stdin})
	if err != nil {
		fmt.Fprintf(stderr, "minidump-stackwalk: %s%s\n", textsafe.Escape(openErrorText(o.dumpPath, err)), notADumpHint(o.dumpPath))
		writeOpenFailure(group, stdout, o.dumpPath, err) // --json prints a status document
		o.ci.addOpenFailure(o.dumpPath, err)             // -f junit, sarif, github (ciformats_single.go)
		return o.ci.finishSingle(exitDump, stdout, stderr)
	}
	defer d.Close()
	return processInput(o, group, d, stdout, stderr)
}

// processInput processes d, prints it and returns the exit status: 1 when
// the state has failures (what could be read is printed all the same).
func processInput(o *options, group flagGroup, d *stackwalk.Dump, stdout, stderr io.Writer) int {
	if d.Microdump != nil {
		for _, w := range d.Microdump.Warnings {
			logf(stderr, "minidump-stackwalk: %s: %s\n", o.dumpPath, w)
		}
	}
	sup, downloaded := o.walkSymbols(d, stderr)                        // prefetch, progress (symbolprogress.go)
	st, err := d.Process(sup, o.budgeted(o.processorOptions(), group)) // limits.go
	downloaded()
	in := &input{Path: o.dumpPath, SymbolPaths: o.symbolPaths, State: st}
	if err != nil && d.Kind == stackwalk.KindMicrodump {
		// Breakpad's microdump_stackwalk prints no report then.
		logf(stderr, "minidump-stackwalk: %s: %v\n", o.dumpPath, err)
		in.NoText = true
		writeFailure(group, stdout, in) // --json status document
		o.ci.addState(o.dumpPath, st, err)
		return o.ci.finishSingle(exitDump, stdout, stderr)
	}
	if !o.breakpadCompat && o.extraThread >= len(st.Threads) && len(st.Threads) > 0 {
		// Known only now: -t names a thread the dump does not have
		// (Breakpad prints the crashed thread alone and exits 0).
		logf(stderr, "minidump-stackwalk: -t %d: %s has %d threads (0 to %d)\nRun 'minidump-stackwalk --help' for usage.\n",
			o.extraThread, o.dumpPath, len(st.Threads), len(st.Threads)-1)
		return exitUsage
	}
	if !o.noDemangle { // demangle C++/Rust names unless --no-demangle
		st.DemangleNames()
	}
	o.ci.addState(o.dumpPath, st, err)
	in.NoText = o.ci.takesStdout() // a CI document in place of the report
	if !writeOutput(o, group, in, stdout, stderr) {
		return exitDump
	}
	for _, e := range st.Warnings() {
		logf(stderr, "minidump-stackwalk: warning: %s: %v\n", o.dumpPath, e)
	}
	failures := st.Failures()
	for _, e := range failures {
		logf(stderr, "minidump-stackwalk: %s: %v\n", o.dumpPath, e)
	}
	status := exitOK
	if len(failures) > 0 {
		status = exitDump
	}
	return o.ci.finishSingle(status, stdout, stderr)
}

// writeOutput prints in, buffered, in the format the flags select: the flag
// group's (--json and the other rust-minidump flags) or Breakpad's text
// formats. A write error is printed on stderr and makes it return false.
func writeOutput(o *options, group flagGroup, in *input, stdout, stderr io.Writer) bool {
	w := bufio.NewWriterSize(stdout, 64<<10)
	var err error
	if p, ok := group.(groupPrinter); ok {
		err = p.Write(w, in)
	} else if !in.NoText {
		err = writeText(w, o, in.State)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		logf(stderr, "minidump-stackwalk: writing output: %v\n", err)
		return false
	}
	return true
}

// writeText prints the Breakpad-format text output selected by o: -m, -b, or
// the human report with its -s, -c, -t and -d variants.
func writeText(w io.Writer, o *options, st *processor.ProcessState) error {
	switch {
	case o.machine:
		return report.WriteMachine(w, st)
	case o.brief:
		return report.WriteBrief(w, st)
	}
	return report.WriteHuman(w, st, report.HumanOptions{
		StackContents:        o.stackContents,
		RequestingThreadOnly: o.crashedOnly,
		ExtraThread:          o.extraThread,
		StackDump:            o.stackDump,
	})
}

// openErrorText is the message for a dump that failed to open, naming its
// path once: the input reader's errors and the file system's already
// begin with it ("x.dmp.xz: at offset …", "open x.dmp: …").
func openErrorText(path string, err error) string {
	msg := err.Error()
	var pathErr *fs.PathError
	if strings.HasPrefix(msg, path+": ") || errors.As(err, &pathErr) && pathErr.Path == path && msg == pathErr.Error() {
		return msg
	}
	return path + ": " + msg
}

// notADumpHint says what to do instead when the input that failed to open
// is a symbol file or a directory, the two usual mix-ups (issue 28); ""
// otherwise.
func notADumpHint(path string) string {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return ""
	case st.IsDir():
		return "\nminidump-stackwalk: one dump is walked at a time: for the dumps of a directory, run `minidump-stackwalk batch " +
			textsafe.Escape(path) + "`; a symbol directory goes after the dump or to --symbols-path"
	case isSymbolFile(path): // batch_inputs.go
		return "\nminidump-stackwalk: " + textsafe.Escape(path) + " is a symbol file: give the dump first, then symbol files and " +
			"directories (or --symbols-path)"
	}
	return ""
}
