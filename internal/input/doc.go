// Package input recognises what a file given to the stack walker holds,
// by its content and not its name: a minidump, an Android microdump, a
// Linux ELF core, or any of those compressed with gzip, zstd or xz, read
// from a path or from standard input ("-"). Anything else is described
// (empty, text, an ELF file that is no core, ...) so the user learns what
// was given instead of a dump.
//
// Inputs that must be held in memory (standard input, decompressed
// content, microdumps) are bounded by Options.MaxBytes: a small compressed
// file cannot expand without limit. A plain minidump or core is not read
// here; the caller opens (and memory-maps) its path.
package input
