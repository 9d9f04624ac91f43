package main

// rust-minidump's command line beside Breakpad's: --json / --pretty,
// --human, --cyborg, --output-file, --verbose / --log-file, --symbols-path,
// --evil-json and --features, plus --no-demangle (--brief is Breakpad's -b,
// already registered; shell completion is cobra's "completion" command).
// The group takes over the output whenever one of its flags is given, and
// then prints Breakpad's formats through writeText (process.go) unless JSON
// is asked for.

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/report"
)

// rustFlags is the flag group of rust-minidump's options.
type rustFlags struct {
	json         bool
	pretty       bool
	human        bool
	cyborg       string
	outputFile   string
	verbose      string
	symbolsPaths []string
	noDemangle   bool
	evilJSON     string
	features     string
	logFile      string

	fs *pflag.FlagSet
	o  *options
	// stderr is run()'s stderr, where the --verbose log goes without
	// --log-file (nil: the log is discarded; never the process's own
	// stderr, so that tests and embedders capture it).
	stderr io.Writer
}

// setStderr gives the groups that write diagnostics run()'s stderr.
func setStderr(groups []flagGroup, stderr io.Writer) {
	for _, g := range groups {
		if r, ok := g.(*rustFlags); ok {
			r.stderr = stderr
		}
	}
}

// levelTrace is below slog's Debug, for rust-minidump's "trace".
const levelTrace = slog.LevelDebug - 4

// verboseLevel is the log level a --verbose name selects.
func verboseLevel(name string) (slog.Level, bool) {
	switch name {
	case "error":
		return slog.LevelError, true
	case "warn":
		return slog.LevelWarn, true
	case "info":
		return slog.LevelInfo, true
	case "debug":
		return slog.LevelDebug, true
	case "trace":
		return levelTrace, true
	}
	return 0, false
}

func (r *rustFlags) AddFlags(fs *pflag.FlagSet) {
	r.fs = fs
	fs.BoolVar(&r.json, "json", false, "emit a machine-readable JSON report in rust-minidump's schema (docs/json-schema.md)")
	fs.BoolVar(&r.pretty, "pretty", false, "pretty-print --json output")
	fs.BoolVar(&r.human, "human", false, "emit the human-readable report (the default)")
	fs.StringVar(&r.cyborg, "cyborg", "", "emit the human-readable report and write the --json report to `PATH`")
	fs.StringVar(&r.outputFile, "output-file", "", "write the output to `PATH` instead of stdout")
	// No default without a value: rust-minidump (clap) reads "--verbose trace"
	// as the flag and its value, and so do we.
	fs.StringVar(&r.verbose, "verbose", "error", "log `LEVEL` on stderr: off, error, warn, info, debug, trace")
	fs.StringVar(&r.logFile, "log-file", "", "write the --verbose log to `PATH` instead of stderr")
	addStringList(fs, &r.symbolsPaths, "symbols-path", "a symbol directory or file (repeatable), in addition to the positional symbol paths")
	fs.BoolVar(&r.noDemangle, "no-demangle", false, "print mangled C++ and Rust names as the symbol files give them")
	fs.StringVar(&r.features, "features", "stable-basic", "rust-minidump's analysis level: stable-basic, stable-all or unstable-all; accepted for compatibility (none changes our output: rust-minidump's unstable-all only adds function arguments to its own human format)")
	fs.StringVar(&r.evilJSON, "evil-json", "", "UNSTABLE, as in rust-minidump: a JSON `FILE` whose ModuleSignatureInfo names the certificate subjects of modules (cert_subject in --json)")
}

// changed reports whether any flag of the group was given.
func (r *rustFlags) changed() bool {
	if r.fs == nil {
		return false
	}
	for _, n := range []string{"json", "pretty", "human", "cyborg", "output-file", "verbose", "symbols-path", "no-demangle", "evil-json", "features", "log-file"} {
		if r.fs.Changed(n) {
			return true
		}
	}
	return false
}

// Active reports whether any of the group's flags was given.
func (r *rustFlags) Active() bool { return r.changed() }

// Check rejects combinations that make no sense, with a one-line reason,
// and adds --symbols-path to the symbol paths.
func (r *rustFlags) Check(o *options) error {
	r.o = o
	breakpadFlag := ""
	switch {
	case o.machine:
		breakpadFlag = "-m"
	case o.stackContents:
		breakpadFlag = "-s"
	case o.crashedOnly:
		breakpadFlag = "-c"
	case o.extraThread >= 0:
		breakpadFlag = "-t"
	case o.stackDump:
		breakpadFlag = "-d"
	}
	switch {
	case r.json && r.human:
		return errors.New("--json and --human select different outputs; use --cyborg PATH for both")
	case r.json && r.cyborg != "":
		return errors.New("--json and --cyborg both write JSON; use one")
	case r.fs.Changed("cyborg") && r.cyborg == "":
		return errors.New("--cyborg needs the PATH to write the JSON report to")
	case r.pretty && !r.json && r.cyborg == "":
		return errors.New("--pretty applies only to --json or --cyborg output")
	case r.json && o.brief:
		return errors.New("--brief applies to the human report, not to --json")
	case r.json && breakpadFlag != "":
		return fmt.Errorf("%s is an option of the human report, not of --json", breakpadFlag)
	case r.human && o.machine:
		return errors.New("--human and -m select different outputs; use one")
	case r.cyborg != "" && o.machine:
		return errors.New("--cyborg prints the human report; -m selects the machine format instead")
	case r.cyborg != "" && r.cyborg == r.outputFile:
		return errors.New("--cyborg and --output-file name the same file")
	case r.logFile != "" && (r.logFile == r.outputFile || r.logFile == r.cyborg):
		return errors.New("--log-file names the same file as the output")
	}
	switch r.features {
	case "stable-basic", "stable-all", "unstable-all":
	default:
		return fmt.Errorf("--features %q: want stable-basic, stable-all or unstable-all", r.features)
	}
	if r.verbose != "off" {
		if _, ok := verboseLevel(r.verbose); !ok {
			return fmt.Errorf("--verbose %q: want off, error, warn, info, debug or trace", r.verbose)
		}
	}
	o.symbolPaths = append(o.symbolPaths, r.symbolsPaths...)
	o.noDemangle = r.noDemangle
	o.trace = r.verbose == "trace" // record the walks' steps (trace.go)
	if r.verbose == "debug" || r.verbose == "trace" {
		o.lookups = &lookupLog{} // every symbol file tried (lookuplog.go)
	}
	return nil
}

// logger returns the logger for --verbose, writing to w (stderr or --log-file).
func (r *rustFlags) logger(w io.Writer) *slog.Logger {
	if r.verbose == "off" {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	level, ok := verboseLevel(r.verbose)
	if !ok {
		level = slog.LevelError
	}
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.LevelKey && a.Value.Any() == levelTrace {
			return slog.String(slog.LevelKey, "TRACE")
		}
		return a
	}}
	return slog.New(slog.NewTextHandler(w, opts))
}

// rustFlags prints processed dumps (--json, --cyborg).
var _ groupPrinter = (*rustFlags)(nil)

// Write prints the selected outputs: JSON, human, or both (--cyborg), to
// stdout or --output-file.
func (r *rustFlags) Write(w io.Writer, in *input) error {
	logOut := r.stderr
	if logOut == nil {
		logOut = io.Discard
	}
	if r.logFile != "" {
		f, err := os.Create(r.logFile)
		if err != nil {
			return fmt.Errorf("--log-file: %w", err)
		}
		defer f.Close()
		logOut = f
	}
	log := r.logger(logOut)
	log.Info("processing", "dump", in.Path, "symbol_paths", strings.Join(in.SymbolPaths, ","))
	r.o.lookups.logTo(log)  // --verbose=debug: each symbol file tried (lookuplog.go)
	logWalks(log, in.State) // --verbose=trace: each step of each walk (trace.go)

	out := w
	if r.outputFile != "" {
		f, err := os.Create(r.outputFile)
		if err != nil {
			return fmt.Errorf("--output-file: %w", err)
		}
		defer f.Close()
		out = f
	}
	if r.json {
		return r.writeJSON(out, in, log)
	}
	if !in.NoText {
		if err := writeText(out, r.o, in.State); err != nil {
			return err
		}
	}
	if r.cyborg != "" {
		f, err := os.Create(r.cyborg)
		if err != nil {
			return fmt.Errorf("--cyborg: %w", err)
		}
		if err := r.writeJSON(f, in, log); err != nil {
			f.Close()
			return fmt.Errorf("--cyborg: %w", err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cyborg: %w", err)
		}
	}
	return nil
}

// writeJSON writes the JSON report of the processed dump as it builds it
// (report.WriteStateJSON: the memory of one entry, not of the document).
func (r *rustFlags) writeJSON(w io.Writer, in *input, log *slog.Logger) error {
	for _, m := range in.State.Modules {
		log.Debug("module symbols", "file", m.CodeFile, "status", m.Symbols.String())
	}
	var opts report.JSONOptions
	if r.evilJSON != "" {
		subjects, err := readEvilJSON(r.evilJSON)
		if err != nil {
			log.Error("--evil-json ignored", "err", err)
		}
		opts.CertSubjects = subjects
	}
	return report.WriteStateJSON(w, in.State, opts, r.pretty)
}

// writeOpenFailure gives --json and --cyborg a JSON document whose status
// says why the dump could not be read at all (rust-minidump prints nothing
// then; Socorro's stackwalker printed such a status). Other outputs print
// nothing. Called by process() before it exits with status 1.
func writeOpenFailure(group flagGroup, stdout io.Writer, path string, err error) {
	writeFailure(group, stdout, &input{Path: path, State: processor.Unreadable(err), NoText: true})
}

// writeFailure is writeOpenFailure for a dump that was read but could not be
// processed (in.State holds what was found and why it failed).
func writeFailure(group flagGroup, stdout io.Writer, in *input) {
	r, ok := group.(*rustFlags)
	if !ok || (!r.json && r.cyborg == "") {
		return
	}
	in.NoText = true // no human report for a failed dump
	if werr := r.Write(stdout, in); werr != nil && r.stderr != nil {
		fmt.Fprintf(r.stderr, "minidump-stackwalk: writing output: %v\n", werr)
	}
}

// maxEvilJSON bounds the --evil-json file we read.
const maxEvilJSON = 16 << 20

func readEvilJSON(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEvilJSON+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxEvilJSON {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxEvilJSON)
	}
	return report.ParseEvilJSON(data)
}
