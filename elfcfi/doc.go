// Package elfcfi reads the unwind tables of ELF files: the DWARF call frame
// information in .eh_frame (found through .eh_frame_hdr's binary search
// table when there is one) and .debug_frame, and the ARM EHABI tables
// .ARM.exidx and .ARM.extab of 32-bit ARM.
//
// NewEHFrame and NewDebugFrame parse a section into CIEs and FDEs. Every
// DW_CFA instruction of DWARF 5 and the GNU extensions GCC emits
// (GNU_args_size, GNU_negative_offset_extended, and on AArch64
// negate_ra_state) is executed into a table of Rows, which Events gives as
// each rule is set by its instruction (what Breakpad's CFI reader reports,
// for converters to STACK CFI).
// DW_CFA_def_cfa_register and DW_CFA_def_cfa_offset after an expression
// CFA behave as in GCC's unwinder and readelf.
//
// NewExidx parses .ARM.exidx with its .ARM.extab, gives its entries and
// decodes their unwind opcodes (short and long compact models,
// and GCC's generic personality routines, whose data has the long model's
// layout; DecodeExidxOps).
//
// The walk evaluates what this package reads as STACK CFI rules (dumpsyms
// converts them, symfile evaluates them). The tests check the rows against
// readelf (every row, FDE.Rows, and every opcode, ExidxOp.String) and apply
// them with an unwinder of their own (unwinder_test.go: a DWARF expression
// evaluator, Row.Unwind, ExidxEntry.Unwind) on frames built from objdump's
// disassembly.
//
// Input is untrusted: every length, offset and count is checked against the
// section and a malformed entry yields a *FormatError naming the section and
// the byte offset; nothing panics or loops without bound.
package elfcfi
