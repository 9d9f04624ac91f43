package main

// PE images beside ELF files (issue 24): --use-local-debuginfo and
// --debuginfo-path also find a Windows module's .exe/.dll by its file
// name and code id (flat, or in a Microsoft symbol store's
// name.dll/<TIMESTAMP><SIZEOFIMAGE>/name.dll layout); the walkers read its
// .pdata/.xdata and code, its exports name functions (package pesupplier).

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/pesupplier"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// localFiles is the run's suppliers of modules' own files: ELF, then PE.
type localFiles struct {
	elf processor.NativeSupplier
	pe  *pesupplier.Supplier
}

// Symbols implements symfile.Supplier.
func (l localFiles) Symbols(m symfile.ModuleKey) (*symfile.File, error) {
	return symfile.ChainSupplier{l.elf.(symfile.Supplier), l.pe}.Symbols(m)
}

// Native implements processor.NativeSupplier: the ELF file, else the PE
// image.
func (l localFiles) Native(m symfile.ModuleKey) walker.NativeModule {
	if nm := l.elf.Native(m); nm != nil {
		return nm
	}
	return l.pe.Native(m)
}
