package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/coreconv"
)

type moduleFlags []coreconv.Module

func (m *moduleFlags) String() string { return fmt.Sprint(*m) }
func (m *moduleFlags) Set(s string) error {
	a, err := coreconv.ParseModule(s)
	if err != nil {
		return err
	}
	*m = append(*m, a)
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run returns the exit status: 0 ok, 1 bad or unsupported core, 2 usage.
func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("core2md", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opt coreconv.Options
	var mods moduleFlags
	def := coreconv.DefaultOptions()
	fs.Uint64Var(&opt.StackLimit, "stack-limit", def.StackLimit, "bytes of stack to keep per thread, from the stack pointer up")
	fs.Uint64Var(&opt.MaxMemory, "max-memory", def.MaxMemory, "bound on the memory bytes copied into the dump, all threads together")
	fs.Uint64Var(&opt.IPWindow, "ip-window", def.IPWindow, "bytes of memory to keep around each thread's instruction pointer")
	fs.Uint64Var(&opt.CodeWindow, "code-window", def.CodeWindow, "bytes of code to keep around each stack word and register that points into a module's executable segment (half before, half after; from the core, else from the module's file); 0 keeps none")
	fs.Var(&mods, "module", "`path[@0xBASE]` of an ELF module loaded in the process (repeatable); for cores without NT_FILE (qemu-user). Without @BASE a position-independent executable is placed by AT_ENTRY")
	fs.StringVar(&opt.Sysroot, "sysroot", "", "directory prefixed to module paths from the core when reading them from disk")
	fs.BoolVar(&opt.NoDisk, "no-disk", false, "never read module files from disk (build ids only from the core's memory)")
	fs.StringVar(&opt.OSVersion, "os-version", "", "OS description written to SystemInfo (Breakpad clients write `uname -srvmo`)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: core2md [flags] CORE OUT.dmp\n\nConverts a Linux ELF core file to a minidump.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return 2
	}
	opt.Modules = mods
	core, err := coredump.Open(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "core2md: %v\n", err)
		return 1
	}
	defer core.Close()
	data, err := coreconv.Convert(core, opt)
	if err != nil {
		fmt.Fprintf(stderr, "core2md: %s: %v\n", fs.Arg(0), err)
		return 1
	}
	if err := os.WriteFile(fs.Arg(1), data, 0o644); err != nil {
		fmt.Fprintf(stderr, "core2md: %v\n", err)
		return 1
	}
	return 0
}
