// Package coredump reads Linux ELF core files: the ones the kernel writes,
// gdb's gcore / generate-core-file, and qemu-user's qemu_<prog>_<time>_<pid>.core,
// for amd64, i386, aarch64 and 32-bit ARM.
//
// NewFile parses the program headers and the notes: one Thread per
// NT_PRSTATUS with its registers as a minidump.Context, NT_SIGINFO, NT_AUXV,
// NT_FILE and NT_PRPSINFO. ReadMemory reads process memory from the PT_LOAD
// segments. The core is untrusted input: every count, size and offset is
// checked, and the notes read are bounded (MaxNoteBytes).
package coredump
