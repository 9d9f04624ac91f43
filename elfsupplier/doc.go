// Package elfsupplier is a symfile.Supplier that makes a module's symbol
// file from the module's own ELF files: it finds them with an
// elfsym.Locator (local roots, /usr/lib/debug, .gnu_debuglink, debuginfod;
// only files whose GNU build id equals the dump's code id) and writes the
// .sym dumpsyms writes for them (PUBLIC records from the symbol tables,
// STACK CFI from .eh_frame, .debug_frame and .ARM.exidx), parsed in
// memory. So the walker uses an ELF file's unwind tables and symbols
// through the same path as a .sym: chain it after the .sym suppliers
// (symfile.ChainSupplier) for --use-local-debuginfo.
//
// Not yet: FUNC and line records from DWARF (dumpsyms does not write them).
package elfsupplier
