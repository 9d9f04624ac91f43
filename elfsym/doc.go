// Package elfsym finds the ELF files of a module seen in a dump and reads
// function symbols from them.
//
// Locator.Find looks for the module's ELF file (the path the dump names,
// then by file name under each --debuginfo-path root) and its separate
// debug file (<root>/.build-id/xx/rest.debug under each root and the system
// debug directory, /usr/lib/debug by default; then the .gnu_debuglink name
// next to the binary, in its .debug directory, under the system debug
// directory and under each root; then a debuginfod client if one is set). A
// file is used only when its GNU build id equals the code id the dump gives
// for the module; every file looked at and refused is reported with the
// reason. No path is built from a dump's or a file's contents other than a
// plain file name or validated hex, so no lookup leaves its directories.
//
// NewTable reads the function symbols of .symtab, .dynsym and the
// MiniDebugInfo of .gnu_debugdata (an xz-compressed ELF file with a
// .symtab, decompressed with a size bound); Table.Lookup names the function
// covering an address, demangled. NewLines reads the DWARF line tables
// (debug/dwarf); Lines.Lookup gives an address's source file and line as
// addr2line does.
//
// NewDebugInfo reads DWARF functions, their lines and inlined calls
// through internal/dwarfsyms, the reader package dumpsyms writes FUNC,
// line and INLINE records with; DebugInfo.Lookup gives the function, line
// and inline chain at an address, the same frames symfile gives from the
// .sym dumpsyms writes (a differential test checks it).
package elfsym
