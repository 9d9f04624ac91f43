package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/core2mdcli"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
)

// Exit statuses.
const (
	exitOK    = 0
	exitDump  = 1 // unreadable or unprocessable dump
	exitUsage = 2
	// exitInternal is a bug of ours: a panic, reported with its stack.
	// Go's runtime exits 2 on a panic, which would pass for a usage error.
	exitInternal = 3
	// exitSignal plus the signal's number: a batch run stopped by SIGINT
	// (130), SIGPIPE (141) or SIGTERM (143), after writing its reports.
	exitSignal = 128
)

func main() {
	growStack() // stackstart.go
	setHeapSoftLimit()
	os.Exit(runGuarded(os.Args[1:], os.Stdout, os.Stderr))
}

// runGuarded is run with a panic (a bug, in this goroutine or carried from
// a worker goroutine) turned into a message and exitInternal.
func runGuarded(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(stderr, "minidump-stackwalk: internal error (a bug; please report it with the input): %s\n%s",
				textsafe.EscapeText(fmt.Sprint(v)), debug.Stack())
			status = exitInternal
		}
	}()
	return run(args, stdout, stderr)
}

// options are the parsed command line.
type options struct {
	machine       bool   // -m
	stackContents bool   // -s
	crashedOnly   bool   // -c
	extraThread   int    // -t N; -1 when not given
	brief         bool   // -b
	stackDump     bool   // -d
	format        string // -f machine|human
	// breakpadCompat reproduces Breakpad's output exactly, including the
	// mistakes we otherwise deliberately avoid (processor.Options.Mode).
	breakpadCompat bool
	// lookups collects every symbol file tried, for --verbose=debug
	// (rustflags.go sets it; lookuplog.go prints it); nil: not collected.
	lookups *lookupLog
	// trace records every step of every walk for --verbose=trace
	// (rustflags.go sets it; trace.go prints it).
	trace bool
	// noDemangle keeps mangled function names (--no-demangle;
	// rustflags.go sets it).
	noDemangle bool

	dumpPath    string
	symbolPaths []string  // local paths and symbol server URLs
	sysroot     string    // --sysroot: where a core's module files are read (stackwalk.Options)
	stdin       io.Reader // the dump when dumpPath is "-"

	// symbolServer holds --symbols-url, --symbols-cache, --symbols-total-timeout and
	// --symbol-download-timeout (symbolserver.go).
	symbolServer symbolServerFlags
	// compat holds rust-minidump flags that select no output (rustcompat.go).
	compat compatFlags
	index  indexFlags // --index-dir, --no-index (index.go)
	limits limitFlags // resource bounds (limits.go)
	// debuginfo holds --use-local-debuginfo, --debuginfo-path, --debuginfod-url (debuginfo.go).
	debuginfo debuginfoFlags
	// ci holds the CI formats of -f and their flags (ciformats_single.go).
	ci singleCI
	// walkCtx, when not nil, stops the walks once done (batch's
	// --timeout: processor.Options.Context).
	walkCtx context.Context
	// walkWorkers is how many of a dump's threads are walked at once
	// (processor.Options.Workers; 0: one per CPU). batch sets it so that
	// its workers and their walks together use the CPUs once.
	walkWorkers int
	// readBuf, when not nil, is the batch worker's buffer that a dump
	// read whole goes into (dumpBuffer, batch_adapter.go).
	readBuf *dumpBuffer
}

// flagGroup is a set of flags that can take over the output, such as the
// JSON flags. groups.go lists the groups; each lives in its own file.
type flagGroup interface {
	// AddFlags registers the group's flags.
	AddFlags(fs *pflag.FlagSet)
	// Active reports, after parsing, whether the group's flags select its output.
	Active() bool
	// Check validates the group's flags against the rest; an error is a usage error.
	Check(o *options) error
}

// groupPrinter is a flagGroup that prints processed dumps (--dump prints
// the dump unprocessed instead: processRawDump).
type groupPrinter interface {
	flagGroup
	// Write prints the output for a processed dump.
	Write(w io.Writer, in *input) error
}

// usageError marks errors that exit with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// newCommand builds the root command. Parsed values land in o; the returned
// command's RunE processes the dump and records the exit status in *status.
func newCommand(o *options, groups []flagGroup, stdout, stderr io.Writer, status *int) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "minidump-stackwalk [flags] <minidump> [symbol-path ...]",
		Short: "Print the stacks of a minidump, like Breakpad's minidump_stackwalk",
		Long: `minidump-stackwalk walks the thread stacks of a minidump (a crash dump written by
Breakpad, Crashpad or Windows) and prints them with the symbols found under the
symbol paths, which are laid out as Breakpad's symbol store:
<debug file>/<debug id>/<debug file without .pdb>.sym (or .sym.gz, .sym.zst).
A symbol path may be an http(s) symbol server URL (see --symbols-url); the
downloads of symbol servers and debuginfod are made by the helper program
minidump-stackwalk-fetch, found beside minidump-stackwalk or on PATH. The
input may also be an Android microdump or a Linux ELF core file (converted as
core2md does), each also gzip-, zstd- or xz-compressed, told by content; "-"
reads it from standard input.

Shell completion: minidump-stackwalk completion bash|zsh|fish|powershell --help
says how to load it. The manual page is docs/man/minidump-stackwalk.1.

Exit status: 0 ok, 1 unreadable or unprocessable dump, 2 usage error, 3 internal
error (a bug).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("missing minidump file")}
			}
			return nil
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.dumpPath, o.symbolPaths = args[0], args[1:]
			if err := o.check(); err != nil {
				return usageError{err}
			}
			if err := o.checkSymbolPaths(stderr); err != nil { // diagnostics.go
				return usageError{err}
			}
			var active flagGroup
			for _, g := range groups {
				if !g.Active() {
					continue
				}
				if err := g.Check(o); err != nil {
					return usageError{err}
				}
				active = g
			}
			*status = process(o, active, stdout, stderr)
			return nil
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.BoolVarP(&o.machine, "machine-readable", "m", false, "output in machine-readable format (pipe-delimited)")
	fs.BoolVarP(&o.stackContents, "stack-contents", "s", false, "output stack contents and possible instruction pointers")
	fs.BoolVarP(&o.crashedOnly, "crashed-thread-only", "c", false, "output only the thread that caused the crash or requested the dump")
	fs.IntVarP(&o.extraThread, "thread", "t", -1, "output the requesting thread and then thread `N`, without the module list")
	fs.Lookup("thread").DefValue = "0" // -1 means "not given": keep "(default -1)" out of the help
	fs.BoolVarP(&o.brief, "brief", "b", false, "brief: only the frames of the thread that caused the crash or requested the dump")
	fs.BoolVarP(&o.stackDump, "dump-stack", "d", false, "dump each thread's stack memory from the stack pointer up, annotated, instead of its frames")
	o.ci.addFormatFlag(fs) // -f: Breakpad's formats and the CI ones (ciformats_single.go)
	fs.BoolVar(&o.breakpadCompat, "breakpad-compat", false,
		"reproduce Breakpad's output exactly, including its known mistakes: walk on past the\n"+
			"program's entry (_start), look symbols up relative to the module entry holding an\n"+
			"address even when an image spans several entries, walk arm/arm64 with Breakpad's methods only")
	fs.StringVar(&o.sysroot, "sysroot", "",
		"for an ELF core: read the module files it names under `DIR` (\"/\" reads them where\n"+
			"they are); by default none is read")
	for _, g := range groups {
		g.AddFlags(fs)
	}
	o.symbolServer.addFlags(fs) // symbol servers (symbolserver.go)
	o.index.addFlags(fs)        // symbol index (index.go)
	o.compat.addFlags(fs)       // rust-minidump's --symbols-tmp, --no-color, ... (rustcompat.go)
	addVersionFlag(cmd, fs)     // --version, -V (version.go)
	o.limits.addFlags(fs)       // resource bounds (limits.go)
	o.debuginfo.addFlags(fs)    // symbols from ELF files (debuginfo.go)
	o.ci.addFlags(fs)           // CI formats' --baseline, --fail-on, ... (ciformats_single.go)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return cmd
}

// addSubcommands adds core2md, batch and, through cobra, help and
// completion to the root command.
func addSubcommands(cmd *cobra.Command, o *options, stdout, stderr io.Writer, status *int) {
	cmd.AddCommand(core2mdcli.New(stdout, stderr, status))
	cmd.AddCommand(newBatchCommand(o.stdin, stdout, stderr, status)) // batch triage (batch.go)
}

// subcommandWords are the arguments that can make cobra leave the root
// command: the subcommands' names, cobra's own help and completion commands,
// and the help flags, whose output lists the subcommands.
// TestSubcommandWords checks the list against the full command tree.
var subcommandWords = [...]string{"core2md", "batch", "help", "completion",
	cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd, "-h", "--help"}

// needsSubcommands reports whether args may reach a subcommand or the help.
// When none can, the subcommands are not built: a single-dump run is mostly
// process start-up, which they would lengthen (docs/performance.md,
// "Startup"). It errs on the side of building them: a short-flag cluster
// with an h in it ("-mh") may be a request for help.
func needsSubcommands(args []string) bool {
	for _, a := range args {
		if slices.Contains(subcommandWords[:], a) || strings.HasPrefix(a, "--help=") {
			return true
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'h') {
			return true
		}
	}
	return false
}

func (o *options) check() error {
	if err := o.ci.check(o); err != nil { // -f's CI formats (ciformats_single.go)
		return err
	}
	switch o.format {
	case "", "human":
	case "machine":
		o.machine = true
	default:
		return fmt.Errorf("-f %q: want machine or human", o.format)
	}
	if o.extraThread < -1 {
		return fmt.Errorf("-t %d: want a thread index >= 0", o.extraThread)
	}
	if err := o.limits.check(); err != nil { // resource bounds (limits.go)
		return err
	}
	if err := o.debuginfo.check(); err != nil { // debuginfo.go
		return err
	}
	if err := o.checkConflicts(); err != nil { // diagnostics.go
		return err
	}
	if err := o.compat.apply(o); err != nil { // rustcompat.go
		return err
	}
	return o.symbolServer.check(o) // symbol server flags (symbolserver.go)
}

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runWithStdin(args, os.Stdin, stdout, stderr)
}

// runWithStdin is run with the input that "-" names.
func runWithStdin(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := &options{stdin: stdin}
	defer o.index.wait() // the symbol indexes still being written (index.go)
	status := exitOK
	groups := flagGroups()
	setStderr(groups, stderr) // the --verbose log (rustflags.go)
	cmd := newCommand(o, groups, stdout, stderr, &status)
	if needsSubcommands(args) {
		addSubcommands(cmd, o, stdout, stderr, &status)
	} else {
		// cobra would build its completion command, find that the args do
		// not name it and remove it again: a root without subcommands gets
		// one only when it is called.
		cmd.CompletionOptions.DisableDefaultCmd = true
	}
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		logf(stderr, "minidump-stackwalk: %v\n", err)
		var u usageError
		if errors.As(err, &u) || errors.As(err, new(core2mdcli.UsageError)) {
			fmt.Fprintf(stderr, "Run 'minidump-stackwalk --help' for usage.\n")
			return exitUsage
		}
		return exitDump
	}
	return status
}
