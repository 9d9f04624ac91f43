// Command core2md converts a Linux ELF core file (kernel, gdb or qemu-user
// written; amd64, i386, aarch64, 32-bit ARM) into a minidump that Breakpad's
// minidump_stackwalk and this project's minidump-stackwalk can walk.
//
// Usage:
//
//	core2md [flags] CORE OUT.dmp
//
// Flags: --stack-limit N (bytes of stack per thread, default 256 KiB),
// --max-memory N (bound on all memory copied, default 512 MiB), --ip-window N
// (bytes around each instruction pointer, default 256), --code-window N
// (bytes around each stack word and register value that points into
// executable code of a module, default 128: 64 before and 64 from it,
// clipped to the executable segment; from the core, else from the module's
// ELF file: the --module path or the NT_FILE path, read under --sysroot
// unless --no-disk; 0 disables), --module path[@0xBASE] (repeatable; names
// the program of a qemu-user core), --sysroot DIR, --no-disk, --os-version
// TEXT. OUT.dmp "-" writes to standard output. Exit status: 0 ok, 1 bad or
// unsupported core, 2 usage error.
//
// The command line is internal/core2mdcli's, which `minidump-stackwalk
// core2md` runs too (same flags, same exit statuses).
//
// The conversion itself is internal/coreconv, which minidump-stackwalk also
// uses for core files given as input. See docs/testdata.md for what the
// minidump holds.
package main
