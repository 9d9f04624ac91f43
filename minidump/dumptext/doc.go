// Package dumptext prints every stream of a minidump the way Breakpad's
// minidump_dump does (rust-minidump's --dump follows the same layout): the
// header, the stream directory, the thread list with each thread's CPU
// context and stack bytes, thread names, modules with their CodeView and
// miscellaneous records, the memory list, the exception, assertion, system,
// misc, Breakpad and Crashpad info streams, the memory info list and the raw
// Linux text streams.
//
// Write aims at byte-identical output to minidump_dump. It therefore reads
// the file as Breakpad's reader does, through a seek/read cursor whose first
// failed read makes every later read fail (an ifstream's sticky fail bit), and
// applies Breakpad's checks to decide whether a stream is printed at all: a
// stream Breakpad rejects is left out, as minidump_dump leaves it out. Where
// minidump_dump prints memory it never read (past a parameter array, past a
// record's end) Write prints what the dump holds and stops; the tests list
// those cases.
//
// The oracle is minidump_dump of the npm package minidump@0.26.0 (an x86-64
// Linux build): like it, Write takes an x86 context only at exactly 716
// bytes (later Breakpad also reads one followed by an XSAVE area) and leaves
// out RISC-V floating point registers. Contexts of every CPU Breakpad reads
// are printed: x86, amd64, arm, arm64 (and Breakpad's old arm64 layout),
// ppc, ppc64, sparc, mips, mips64, riscv and riscv64.
package dumptext
