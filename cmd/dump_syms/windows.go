package main

import (
	"fmt"
	"io"

	"github.com/minidump-stackwalk/minidump-stackwalk/dumpsyms"
)

// runWindows writes the .sym of a PE image or a PDB (and the other of the
// pair beside it).
func runWindows(path string, opts dumpsyms.Options, stdout, stderr io.Writer) int {
	in, closeAll, err := dumpsyms.OpenWindows(path)
	defer closeAll()
	if err != nil {
		fmt.Fprintf(stderr, "dump_syms: %v\n", err)
		return 1
	}
	if err := dumpsyms.WriteWindows(stdout, in, opts); err != nil {
		fmt.Fprintf(stderr, "dump_syms: %v\n", err)
		return 1
	}
	return 0
}
