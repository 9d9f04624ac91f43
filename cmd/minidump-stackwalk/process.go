package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/minidump-stackwalk/minidump-stackwalk/crashinfo"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/report"
)

// input is a processed dump, handed to the printers.
type input struct {
	Path        string
	SymbolPaths []string
	Dump        *minidump.File
	// Raw reads the dump's bytes, for the streams the JSON report decodes
	// itself; nil means the file at Path.
	Raw    io.ReaderAt
	State  *processor.ProcessState
	Report *report.Process
	// Errs lists the streams that the report needs (system info, exception,
	// thread and module lists) but could not read. The output still shows
	// everything readable; the exit status is then 1.
	Errs []error
	// Warnings lists other problems (an ignored overlapping memory region, a
	// broken thread name list): printed on stderr, exit status unaffected.
	Warnings []error
}

// processorOptions returns the processing options the flags select.
func (o *options) processorOptions() processor.Options {
	return processor.Options{
		BreakpadModuleBases: o.breakpadCompat,
		BreakpadPastEntry:   o.breakpadCompat,
		BreakpadARM:         o.breakpadCompat,
		BreakpadX86:         o.breakpadCompat,
		BreakpadMemory:      o.breakpadCompat, // contexts and stacks only where Breakpad finds them
		BreakpadModules:     o.breakpadCompat, // an overlapping module list outside Linux/Android is rejected
	}
}

// brokenEssentials returns the errors of the streams the report is built
// from that are present but unreadable.
func brokenEssentials(dump *minidump.File) []error {
	var errs []error
	check := func(what string, err error) {
		if err != nil && !errors.Is(err, minidump.ErrNoStream) {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		}
	}
	_, err := dump.SystemInfo()
	check("system info", err)
	_, err = dump.Exception()
	check("exception", err)
	_, err = dump.Threads()
	check("thread list", err)
	_, err = dump.Modules()
	check("module list", err)
	return errs
}

// process reads and processes the dump named in o, prints it and returns the
// exit status.
func process(o *options, group flagGroup, stdout, stderr io.Writer) int {
	if status, ok := processMicrodump(o, group, stdout, stderr); ok { // microdump input
		return status
	}
	if status, ok := processCore(o, group, stdout, stderr); ok { // ELF core input (core.go)
		return status
	}
	dump, err := minidump.Open(o.dumpPath)
	if err != nil {
		fmt.Fprintf(stderr, "minidump-stackwalk: %s: %v\n", o.dumpPath, err)
		writeOpenFailure(group, stdout, o.dumpPath, err) // --json prints a status document
		return exitDump
	}
	defer dump.Close()
	return processDump(o, group, dump, nil, stdout, stderr)
}

// processDump processes the dump read from the file named in o (raw, when
// not nil, reads its bytes), prints it and returns the exit status.
func processDump(o *options, group flagGroup, dump *minidump.File, raw io.ReaderAt, stdout, stderr io.Writer) int {
	in := &input{Path: o.dumpPath, SymbolPaths: o.symbolPaths, Dump: dump, Raw: raw}
	var err error
	// local symbol paths, then symbol servers (symbolserver.go);
	// both nil when there are no symbol paths.
	syms, supplier := o.symbolSupplier(stderr)
	in.State, err = processor.Process(dump, supplier, o.processorOptions())
	if in.State == nil {
		fmt.Fprintf(stderr, "minidump-stackwalk: %s: %v\n", o.dumpPath, err)
		return exitDump
	}
	if !o.noDemangle { // demangle C++/Rust names unless --no-demangle
		in.State.DemangleNames()
	}
	for _, e := range in.State.Errors {
		// An absent optional stream is normal, not a problem.
		if !errors.Is(e, minidump.ErrNoStream) {
			in.Warnings = append(in.Warnings, e)
		}
	}
	in.Errs = brokenEssentials(dump)
	if err != nil {
		in.Errs = append(in.Errs, err)
	}
	in.Report = toReport(in.State, syms)
	in.Report.Symbolize = demangleSymbolize(o, in.Report.Symbolize) // demangled -s names
	if !o.breakpadCompat {                                          // Breakpad prints no instruction analysis
		analysis := crashinfo.AnalyzeDump(dump)
		in.Report.CrashAnalysis = &analysis
	}

	if !writeOutput(o, group, in, stdout, stderr) {
		return exitDump
	}
	errText := map[string]bool{}
	for _, e := range in.Errs {
		errText[e.Error()] = true
	}
	for _, e := range in.Warnings {
		if errText[e.Error()] {
			continue // the processor noted a broken essential stream too
		}
		fmt.Fprintf(stderr, "minidump-stackwalk: warning: %s: %v\n", o.dumpPath, e)
	}
	for _, e := range in.Errs {
		fmt.Fprintf(stderr, "minidump-stackwalk: %s: %v\n", o.dumpPath, e)
	}
	if len(in.Errs) > 0 {
		return exitDump
	}
	return exitOK
}

// writeOutput prints in, buffered, in the format the flags select: the flag
// group's (--json and the other rust-minidump flags) or Breakpad's text
// formats. A write error is printed on stderr and makes it return false.
func writeOutput(o *options, group flagGroup, in *input, stdout, stderr io.Writer) bool {
	w := bufio.NewWriterSize(stdout, 64<<10)
	var err error
	if group != nil {
		err = group.Write(w, in)
	} else {
		err = writeText(w, o, in)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(stderr, "minidump-stackwalk: writing output: %v\n", err)
		return false
	}
	return true
}

// writeText prints the Breakpad-format text output selected by o: -m, -b, or
// the human report with its -s, -c, -t and -d variants.
func writeText(w io.Writer, o *options, in *input) error {
	switch {
	case o.machine:
		return report.WriteMachine(w, in.Report)
	case o.brief:
		return report.WriteBrief(w, in.Report)
	}
	return report.WriteHuman(w, in.Report, report.HumanOptions{
		StackContents:        o.stackContents,
		RequestingThreadOnly: o.crashedOnly,
		ExtraThread:          o.extraThread,
		StackDump:            o.stackDump,
	})
}
