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
// MiniDebugInfo decompresses, with a size bound, the ELF file Fedora's
// .gnu_debugdata holds (an xz stream with a .symtab): the function symbols
// a stripped file keeps, which dumpsyms writes as PUBLIC records.
//
// Reading symbols, lines and inlines is dumpsyms's (internal/dwarfsyms):
// the tests check them here against nm and addr2line, and against the .sym
// dumpsyms writes, through test-only readers (table_test.go,
// debuginfo_helper_test.go).
package elfsym
