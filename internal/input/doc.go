// Package input recognises what a file given to the stack walker holds,
// by its content and not its name: a minidump, an Android microdump, a
// Linux ELF core, or any of those compressed with gzip, zstd or xz, read
// from a path or from standard input ("-"). Anything else is described
// (empty, text, an ELF file that is no core, ...) so the user learns what
// was given instead of a dump.
//
// Standard input (or a pipe) and the decompression of a compressed file
// are copied into a temporary file, removed at once where the system
// allows it (else on Input.Close), through a bounded copy: at most
// Options.MaxBytes (4 GiB by default) are written and only a small buffer
// and the decoder's window are held in memory, so a small compressed file
// cannot expand without limit. A content whose first 64 KiB are neither
// a dump nor text is not copied past them. A microdump's text is read into memory, up
// to microdump.MaxSize. A plain minidump of at most 1 MiB (WholeBytes) is
// read into memory by the same read that tells its kind (Input.Whole),
// into the caller's Options.Buffer when it fits (a batch reuses one per
// worker); a larger one, or a core, is not read here: the caller opens
// (and memory-maps) its path.
package input
