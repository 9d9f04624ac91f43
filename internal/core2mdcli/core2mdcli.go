package core2mdcli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/coreconv"
)

// Exit statuses, as minidump-stackwalk's.
const (
	ExitOK    = 0
	ExitCore  = 1 // unreadable or unsupported core, or the output could not be written
	ExitUsage = 2
)

// UsageError marks an error of the command line (exit status 2).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// New returns the core2md command. Its RunE converts and stores the exit
// status in *status; errors it returns are usage errors. stdout receives
// the minidump when OUT is "-".
func New(stdout, stderr io.Writer, status *int) *cobra.Command {
	opt := coreconv.DefaultOptions()
	var modules []string
	var like string
	cmd := &cobra.Command{
		Use:   "core2md [flags] CORE OUT.dmp",
		Short: "Convert a Linux ELF core file into a minidump",
		Long: `core2md converts a Linux ELF core file (written by the kernel, gdb or qemu-user;
amd64, i386, aarch64 or 32-bit ARM) into a minidump that minidump-stackwalk and
Breakpad's minidump_stackwalk can walk. OUT.dmp "-" writes the minidump to
standard output.

It keeps each thread's stack, the memory around each instruction pointer, and the
code around every stack word and register value that points into a module's
executable segment, from the core or else from the module's ELF file (the path
the core's NT_FILE note names, or --module), as gdb reads it.

--like breakpad or --like crashpad writes what that crash reporter's Linux client
keeps instead: the stacks and 256 bytes around the crashing thread's instruction
pointer (Breakpad), or the stacks and 512 bytes around each register value of the
crashing context (Crashpad), and no other memory; --like stacks keeps the stacks
only (as Windows' MiniDumpNormal). CORE may then also be a minidump
(one core2md wrote): its memory is reduced to what the client keeps, nothing added.

Exit status: 0 converted, 1 unreadable or unsupported core, 2 usage error.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return UsageError{fmt.Errorf("want CORE and OUT.dmp, got %d arguments", len(args))}
			}
			return nil
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, m := range modules {
				mod, err := coreconv.ParseModule(m)
				if err != nil {
					return UsageError{err}
				}
				opt.Modules = append(opt.Modules, mod)
			}
			client, err := coreconv.ParseClient(like)
			if err != nil {
				return UsageError{err}
			}
			opt.Like = client
			*status = convert(args[0], args[1], opt, stdout, stderr)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.Uint64Var(&opt.StackLimit, "stack-limit", opt.StackLimit, "bytes of stack to keep per thread, from the stack pointer up")
	fs.Uint64Var(&opt.MaxMemory, "max-memory", opt.MaxMemory, "bound on the memory bytes copied into the dump, all threads together")
	fs.Uint64Var(&opt.IPWindow, "ip-window", opt.IPWindow, "bytes of memory to keep around each thread's instruction pointer")
	fs.Uint64Var(&opt.CodeWindow, "code-window", opt.CodeWindow,
		"bytes of code to keep around each stack word and register that points into a module's\n"+
			"executable segment (half before, half after; from the core, else from the module's file); 0 keeps none")
	fs.StringArrayVar(&modules, "module", nil,
		"`path[@0xBASE]` of an ELF module loaded in the process (repeatable); for cores without\n"+
			"NT_FILE (qemu-user). Without @BASE a position-independent executable is placed by AT_ENTRY")
	fs.StringVar(&opt.Sysroot, "sysroot", "", "read module paths from the core under `DIR` (they may not leave it)")
	fs.BoolVar(&opt.NoDisk, "no-disk", false, "never read module files from disk (build ids only from the core's memory)")
	fs.StringVar(&like, "like", "", "keep only the memory a crash reporter's client keeps: `breakpad`, crashpad or stacks")
	fs.StringVar(&opt.OSVersion, "os-version", "", "OS description written to SystemInfo (Breakpad clients write `uname -srvmo`)")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return UsageError{err} })
	return cmd
}

// convert writes the minidump of the core at in to out ("-": stdout) and
// returns the exit status, having said why on stderr when it is not 0.
func convert(in, out string, opt coreconv.Options, stdout, stderr io.Writer) int {
	data, err := convertOrShape(in, opt)
	if err != nil {
		if errors.As(err, new(errCoreOpen)) { // names the file itself
			fmt.Fprintf(stderr, "core2md: %v\n", err)
		} else {
			fmt.Fprintf(stderr, "core2md: %s: %v\n", in, err)
		}
		return ExitCore
	}
	if out == "-" {
		_, err = stdout.Write(data)
	} else {
		err = os.WriteFile(out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "core2md: %v\n", err)
		return ExitCore
	}
	return ExitOK
}

// convertOrShape converts the core at in, or with opt.Like shapes the
// minidump at in.
func convertOrShape(in string, opt coreconv.Options) ([]byte, error) {
	if opt.Like != coreconv.ClientAll && isMinidump(in) {
		dump, err := os.ReadFile(in)
		if err != nil {
			return nil, err
		}
		return coreconv.Shape(dump, opt.Like)
	}
	core, err := coredump.Open(in)
	if err != nil {
		return nil, errCoreOpen{err}
	}
	defer core.Close()
	return coreconv.Convert(core, opt)
}

// errCoreOpen is coredump.Open's error, which names the file.
type errCoreOpen struct{ error }

func (e errCoreOpen) Unwrap() error { return e.error }

// isMinidump says whether the file at path starts with a minidump's
// signature.
func isMinidump(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var sig [4]byte
	_, err = io.ReadFull(f, sig[:])
	return err == nil && string(sig[:]) == "MDMP"
}

// Run runs the command as the program core2md with args and returns the
// exit status, printing usage errors as minidump-stackwalk does.
func Run(args []string, stdout, stderr io.Writer) int {
	status := ExitOK
	cmd := New(stdout, stderr, &status)
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(stderr, "core2md: %v\n", err)
		if errors.As(err, new(UsageError)) {
			fmt.Fprintf(stderr, "Run 'core2md --help' for usage.\n")
			return ExitUsage
		}
		return ExitCore
	}
	return status
}
