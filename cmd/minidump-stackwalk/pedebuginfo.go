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
)

// localFiles is the walkers' evidence from modules' own files: ELF, then
// PE.
type localFiles struct {
	elf processor.NativeSupplier
	pe  *pesupplier.Supplier
}

// Native implements processor.NativeSupplier: the ELF file, else the PE
// image.
func (l localFiles) Native(m symfile.ModuleKey) processor.NativeModule {
	if nm := l.elf.Native(m); nm != nil {
		return nm
	}
	return l.pe.Native(m)
}

// peSupplier is the run's PE image supplier, made with the ELF one.
func (f *debuginfoFlags) peSupplier() *pesupplier.Supplier {
	if f.built == nil || f.built.pe == nil {
		return pesupplier.New(f.roots, true)
	}
	return f.built.pe
}
