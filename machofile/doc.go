// Package machofile reads what the walker and dump_syms need of a Mach-O
// file, on top of Go's debug/macho: one architecture of a thin or universal
// (fat) file (Open, OpenSlice), its LC_UUID as Breakpad's debug id
// (File.DebugID: the UUID's bytes in order, then "0", as Breakpad's Mac
// dump_syms writes it and as Crashpad's CodeView records give it), the
// __TEXT segment's address that module-relative addresses count from, the
// bytes of a section (File.SectionData), LC_FUNCTION_STARTS
// (File.FunctionStarts) and, for a binary or a dSYM bundle, the file that
// holds its DWARF (DSYMFile).
//
// Input is untrusted: every offset and size of a load command, a section
// or the function starts is checked against the file before it is read;
// errors are *FormatError naming the file offset, and debug/macho's own
// errors are wrapped in one. Nothing panics (a panic inside debug/macho is
// turned into a FormatError) and nothing reads more than the file holds
// or MaxSectionBytes. Open and OpenSlices read the file through its
// descriptor (never whole), debug/macho reading its header, load commands
// and symbol table.
package machofile
