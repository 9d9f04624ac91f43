// Package pe reads the parts of a PE/COFF image (.exe, .dll) a stack
// walker needs, in the style of debug/elf: the headers and sections, RVA to
// file offset mapping, the debug directory's CodeView (RSDS) record that
// names the image's PDB (Breakpad's debug file and id), TimeDateStamp and
// SizeOfImage (the code id), the export table (public symbols), and the
// exception directory: x64 RUNTIME_FUNCTION entries with their UNWIND_INFO
// (every UWOP code, version 2 epilog codes, chained entries), and ARM64
// .pdata entries with packed unwind data or .xdata records.
//
// Go's debug/pe reads neither the exception directory nor the exports.
// Libraries that do (github.com/saferwall/pe) decode only x64 unwind codes,
// index the file without bounds checks (a short UNWIND_INFO panics) and
// scale SAVE_NONVOL_FAR and ALLOC_LARGE wrongly, so this reader is written
// for hostile input: every count, offset and size is checked against the
// file before use, and errors are *FormatError values naming the file
// offset (or RVA) where the image stops making sense.
//
// The package only decodes; evaluating unwind codes into a caller's
// registers (as RtlVirtualUnwind does) is the walker's side (pesupplier).
package pe
