// Command dump_syms writes the Breakpad symbol file of an ELF file to
// standard output, as Google's dump_syms does, with more STACK CFI (see
// package dumpsyms). With debug directories, a file without DWARF data is
// read with the separate debug file its .gnu_debuglink names. A PE image
// or PDB is read as Breakpad's Windows dump_syms does, with the other of
// the pair when it lies beside it. A Mach-O file is read with the dSYM
// bundle beside it (FILE.dSYM), a dSYM bundle alone gives its symbols
// without STACK CFI; --arch chooses one architecture of a universal file.
//
//	dump_syms [--breakpad-compat] [-i] [-c] [-d] [-m] [-r] [-n name] [-o os] FILE [DEBUG_DIR...]
//
// Flags follow the other commands' conventions (cobra: --help exits 0, a
// usage error exits 2).
package main

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"

	"github.com/spf13/cobra"

	"github.com/minidump-stackwalk/minidump-stackwalk/dumpsyms"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK    = 0
	exitInput = 1 // the file cannot be read or has no usable debug data
	exitUsage = 2
)

// usageError marks errors that exit with status 2.
type usageError struct{ error }

func run(args []string, stdout, stderr io.Writer) int {
	status := exitOK
	cmd := newCommand(stdout, stderr, &status)
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(stderr, "dump_syms: %v\n", err)
		if errors.As(err, new(usageError)) {
			fmt.Fprintf(stderr, "Run 'dump_syms --help' for usage.\n")
			return exitUsage
		}
		return exitInput
	}
	return status
}

// newCommand builds the command with Google's dump_syms's one-letter flags
// and the long names the other commands use; *status gets the exit status.
func newCommand(stdout, stderr io.Writer, status *int) *cobra.Command {
	var opts dumpsyms.Options
	var arch string
	cmd := &cobra.Command{
		Use:   "dump_syms [flags] FILE [DEBUG_DIR...]",
		Short: "Write the Breakpad symbol file of an ELF, PE/PDB or Mach-O file",
		Long: `dump_syms writes the Breakpad symbol file (.sym) of an ELF file, a PE image or
PDB, or a Mach-O file or dSYM bundle to standard output. ELF files as Google's
dump_syms does, with more STACK CFI; with DEBUG_DIRs, a file without DWARF data
is read with the separate debug file its .gnu_debuglink names. A PE image or PDB
as Breakpad's Windows dump_syms does, with the other of the pair when it lies
beside it. A Mach-O file with FILE.dSYM beside it, as Breakpad's Mac dump_syms -g.

Exit status: 0 ok, 1 the file cannot be read (or is of none of these formats),
2 usage error.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("missing FILE")}
			}
			return nil
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(_ *cobra.Command, args []string) error {
			*status = dump(args[0], args[1:], arch, opts, stdout, stderr)
			return nil
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.BoolVarP(&opts.HeaderOnly, "header-only", "i", false, "write the MODULE and INFO records only")
	fs.BoolVarP(&opts.NoCFI, "no-cfi", "c", false, "write no STACK CFI records")
	fs.BoolVarP(&opts.Inlines, "inlines", "d", false, "write INLINE and INLINE_ORIGIN records")
	fs.BoolVarP(&opts.Multiple, "multiple", "m", false, "mark FUNC and PUBLIC records of addresses with several symbols with 'm'")
	fs.BoolVarP(&opts.NoInterCURefs, "no-inter-cu-refs", "r", false, "do not follow DW_AT_specification references into earlier compile units")
	fs.BoolVar(&opts.BreakpadCompat, "breakpad-compat", false, "write exactly Google's records: no CFI additions, its DWARF range quirks")
	fs.StringVarP(&opts.Name, "name", "n", "", "the module `NAME` to write instead of the file's")
	fs.StringVarP(&opts.OS, "os", "o", "", "the `OS` to write instead of Linux")
	fs.StringVarP(&arch, "arch", "a", "", "the architecture `ARCH` of a universal Mach-O file to dump (x86_64, arm64...)")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return cmd
}

// elfMagic starts every ELF file.
var elfMagic = []byte(elf.ELFMAG)

// dump writes the symbol file of path, told by its first bytes, and
// returns the exit status. New formats add a case.
func dump(path string, dirs []string, arch string, opts dumpsyms.Options, stdout, stderr io.Writer) int {
	if isMachO(path) { // a dSYM bundle is a directory: no magic to read
		return runMachO(path, arch, opts, stdout, stderr)
	}
	if dumpsyms.WindowsKind(path) != "" {
		return runWindows(path, opts, stdout, stderr)
	}
	magic, err := readMagic(path, 4)
	if err != nil {
		fmt.Fprintf(stderr, "dump_syms: %v\n", err)
		return exitInput
	}
	switch {
	case bytes.HasPrefix(magic, elfMagic):
		return dumpELF(path, dirs, opts, stdout, stderr)
	}
	fmt.Fprintf(stderr, "dump_syms: %s: not an ELF, PE, PDB or Mach-O file\n", path)
	return exitInput
}

// readMagic returns the first n bytes of path (fewer when it is shorter).
func readMagic(path string, n int) ([]byte, error) {
	f, _, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b[:k], nil
}

// dumpELF writes the symbol file of the ELF file path.
func dumpELF(path string, dirs []string, opts dumpsyms.Options, stdout, stderr io.Writer) int {
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
