// Package elfsupplier is a symfile.Supplier that makes a module's symbol
// file from the module's own ELF files: it finds them with an
// elfsym.Locator (local roots, /usr/lib/debug, .gnu_debuglink, debuginfod;
// only files whose GNU build id equals the dump's code id) and writes the
// .sym dumpsyms writes for them (FILE, FUNC, line and INLINE records from
// DWARF, PUBLIC records from the symbol tables, STACK CFI from .eh_frame,
// .debug_frame and .ARM.exidx), parsed in
// memory. So the walker uses an ELF file's unwind tables and symbols
// through the same path as a .sym: chain it after the .sym suppliers
// (symfile.ChainSupplier) for --use-local-debuginfo.
//
// Supplier.Native gives the walkers the binary itself as evidence
// (processor.Options.Native, walker.NativeModule): its executable bytes
// for call-site checks, its function starts (entry point, FDEs, exidx
// entries, symbols, direct call targets), its unwind tables where the
// module's .sym has none, and prologue analysis (internal/prologue) for
// code no unwind entry covers. See docs/native-debuginfo.md.
package elfsupplier
