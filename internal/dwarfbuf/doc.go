// Package dwarfbuf reads the encodings of DWARF-style sections (.eh_frame,
// .debug_frame, .debug_line, .debug_info, ARM exception tables): fixed-size
// integers in a byte order, LEB128 numbers and NUL-terminated strings,
// every read checked against the end of the data. elfcfi and dwarfsyms
// share it, so that hostile bytes meet one set of checks.
package dwarfbuf
