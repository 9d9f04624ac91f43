// Command dump_syms writes the Breakpad symbol file of an ELF file to
// standard output, as Google's dump_syms does, with more STACK CFI (see
// package dumpsyms).
//
//	dump_syms [-i] [-c] [-n name] [-o os] FILE
package main

import (
	"debug/elf"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/minidump-stackwalk/minidump-stackwalk/dumpsyms"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dump_syms", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts dumpsyms.Options
	fs.BoolVar(&opts.HeaderOnly, "i", false, "write the MODULE and INFO records only")
	fs.BoolVar(&opts.NoCFI, "c", false, "write no STACK CFI records")
	fs.StringVar(&opts.Name, "n", "", "the module `name` to write instead of the file's")
	fs.StringVar(&opts.OS, "o", "", "the `OS` to write instead of Linux")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: dump_syms [-i] [-c] [-n name] [-o os] FILE\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	path := fs.Arg(0)
	f, err := elf.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "dump_syms: %s: %v\n", path, err)
		return 1
	}
	defer f.Close()
	if err := dumpsyms.Write(stdout, f, path, opts); err != nil {
		fmt.Fprintf(stderr, "dump_syms: %v\n", err)
		return 1
	}
	return 0
}
