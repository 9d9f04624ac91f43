// Package dumpsyms writes a Breakpad symbol file (.sym) from an ELF file, as
// Google's dump_syms does: MODULE and INFO CODE_ID from the GNU build id (or
// the hash of .text's first page), PUBLIC records from .symtab (else
// .dynsym), and STACK CFI records from .debug_frame and .eh_frame.
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
// Options.BreakpadCompat leaves the additions out: the output is then
// byte-identical to Google's for files without DWARF debug information.
// WriteWithDebug also reads a separate debug file, as Google's dump_syms
// reads a .gnu_debuglink file. docs/native-debuginfo.md lists what was
// compared and where we differ.
//
// FILE, FUNC, line and INLINE records from DWARF are not written yet: a file
// with .debug_info gets the same records as a stripped one.
package dumpsyms
