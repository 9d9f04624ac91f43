// Package dwarfsyms reads the functions of an ELF file's DWARF debug
// information as Google Breakpad's dump_syms sees them: for each compile
// unit, the DW_TAG_subprogram DIEs with code (their names qualified by
// namespaces and classes, or demangled from DW_AT_linkage_name, followed
// through DW_AT_specification and DW_AT_abstract_origin), the unit's line
// table clipped to those functions, and, when asked, the
// DW_TAG_inlined_subroutine trees under them.
//
// The rules are Breakpad's (src/common/dwarf_cu_to_module.cc,
// dwarf_line_to_module.cc), so that package dumpsyms writes the same FILE,
// FUNC, line and INLINE records and package elfsym names the same frames:
// file names are joined to their directories and the unit's DW_AT_comp_dir
// as text, never cleaned; lines of no size or at address 0 are dropped; a
// function whose ranges add up to no bytes is not a function; a function
// with no name is "<name omitted>". The line programs are read here (Go's
// debug/dwarf LineReader cleans file names); the DIEs through debug/dwarf.
//
// Options.BreakpadRanges and NoLexicalBlocks reproduce what the npm build
// of Google's dump_syms gets wrong (docs/native-debuginfo.md). Demangle
// prints C++ names as __cxa_demangle does.
//
// Read (an ELF file) and ReadSections (section bytes; the fuzz target's
// entry) bound what hostile DWARF may make them hold (Limits, one DIE per
// byte of .debug_info, 256 attributes per abbreviation; CheckCompressed and
// LineRowBound for compressed sections) and return
// *FormatError for malformed data, never panicking.
package dwarfsyms
