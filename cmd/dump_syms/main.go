// Command dump_syms writes the Breakpad symbol file of an ELF file to
// standard output, as Google's dump_syms does, with more STACK CFI (see
// package dumpsyms). With debug directories, a file without DWARF data is
// read with the separate debug file its .gnu_debuglink names. A Mach-O
// file is read with the dSYM bundle beside it (FILE.dSYM), a dSYM bundle
// alone gives its symbols without STACK CFI; -arch chooses one
// architecture of a universal file.
//
//	dump_syms [-breakpad-compat] [-i] [-c] [-d] [-m] [-r] [-n name] [-o os] FILE [DEBUG_DIR...]
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
	fs.BoolVar(&opts.Inlines, "d", false, "write INLINE and INLINE_ORIGIN records")
	fs.BoolVar(&opts.Multiple, "m", false, "mark FUNC and PUBLIC records of addresses with several symbols with 'm'")
	fs.BoolVar(&opts.NoInterCURefs, "r", false, "do not follow DW_AT_specification references into earlier compile units")
	fs.BoolVar(&opts.BreakpadCompat, "breakpad-compat", false, "write exactly Google's records: no CFI additions, its DWARF range quirks")
	fs.StringVar(&opts.Name, "n", "", "the module `name` to write instead of the file's")
	fs.StringVar(&opts.OS, "o", "", "the `OS` to write instead of Linux")
	arch := fs.String("arch", "", "the `architecture` of a universal Mach-O file to dump (x86_64, arm64...)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: dump_syms [-breakpad-compat] [-i] [-c] [-d] [-m] [-r] [-n name] [-o os] [-arch arch] FILE [DEBUG_DIR...]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() < 1 {
		fs.Usage()
		return 2
	}
	path, dirs := fs.Arg(0), fs.Args()[1:]
	if isMachO(path) {
		return runMachO(path, *arch, opts, stdout, stderr)
	}
	f, err := elf.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "dump_syms: %s: %v\n", path, err)
		return 1
	}
	defer f.Close()
	var debug *elf.File
	if len(dirs) > 0 && f.Section(".debug_info") == nil && !opts.HeaderOnly {
		debugPath, err := dumpsyms.FindDebugLink(f, path, dirs)
		if err != nil {
			fmt.Fprintf(stderr, "dump_syms: %v\n", err)
			return 1
		}
		if debug, err = elf.Open(debugPath); err != nil {
			fmt.Fprintf(stderr, "dump_syms: %s: %v\n", debugPath, err)
			return 1
		}
		defer debug.Close()
		if debug.Machine != f.Machine || debug.Class != f.Class || debug.ByteOrder != f.ByteOrder {
			fmt.Fprintf(stderr, "dump_syms: %s: not of %s's architecture\n", debugPath, path)
			return 1
		}
	}
	if err := dumpsyms.WriteWithDebug(stdout, f, debug, path, opts); err != nil {
		fmt.Fprintf(stderr, "dump_syms: %v\n", err)
		return 1
	}
	return 0
}
