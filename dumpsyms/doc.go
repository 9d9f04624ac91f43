// Package dumpsyms writes a Breakpad symbol file (.sym) from an ELF file, as
// Google's dump_syms does: MODULE and INFO CODE_ID from the GNU build id (or
// the hash of .text's first page); FILE, FUNC, line and (Options.Inlines,
// -d) INLINE_ORIGIN and INLINE records from DWARF (internal/dwarfsyms);
// PUBLIC records from .symtab (else .dynsym) where no FUNC starts; and
// STACK CFI records from .debug_frame and .eh_frame. Options.Multiple (-m)
// marks folded symbols with 'm'.
//
// The STACK CFI records are those of Google's dump_syms (the same rules at
// the same addresses, reported the way its CFI reader reports them) plus
// what it drops:
//   - DWARF expression rules (DW_CFA_def_cfa_expression, DW_CFA_expression,
//     DW_CFA_val_expression) that translate into postfix: GCC's
//     stack-realigning prologues and glibc's signal trampolines;
//   - .debug_frame CIEs with the "S" augmentation (signal frames), which
//     Google's reader refuses;
//   - on 32-bit ARM, .ARM.exidx entries for code no DWARF CFI covers;
//   - PUBLIC records from MiniDebugInfo (.gnu_debugdata) symbols.
//
// From DWARF, the default mode also writes what Google's npm build drops:
// functions and inlined calls with DW_AT_ranges in DWARF 5 files without
// .debug_addr, and inlined calls inside lexical blocks.
//
// Options.BreakpadCompat leaves all the additions out: the output is then
// byte-identical to Google's (tested on every ELF file of testdata and, on
// demand, on system libraries). WriteWithDebug also reads a separate debug
// file, as Google's dump_syms reads a .gnu_debuglink file (FindDebugLink
// finds it under debug directories). docs/native-debuginfo.md lists what
// was compared and where we differ.
//
// WriteMachO writes the symbol file of a Mach-O binary and its dSYM's
// DWARF file (package machofile) as Breakpad's Mac dump_syms does: MODULE
// mac with the LC_UUID, FILE/FUNC/line/INLINE from the dSYM, PUBLIC from
// the symbol table (data symbols too), STACK CFI from __eh_frame, and
// outside BreakpadCompat from compact unwind (package compactunwind) as
// Sentry's symbolic derives it. Tested record for record against
// Breakpad's and symbolic's outputs for symbolic's fixture
// (macho_test.go says why each difference is right).
package dumpsyms
