package main

// The modules' own Mach-O binaries and dSYM bundles (issue 25), asked
// after their ELF files with the same flags: --use-local-debuginfo (the
// path the dump names) and --debuginfo-path roots (by name and by the
// UUID-keyed layouts package machosupplier documents).

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/machosupplier"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// withMachO chains the Mach-O supplier after the ELF supplier elf.
func (f *debuginfoFlags) withMachO(elf symfile.Supplier) symfile.Supplier {
	return symfile.ChainSupplier{elf, machosupplier.New(&machosupplier.Locator{Roots: f.roots, UseModulePath: true})}
}
