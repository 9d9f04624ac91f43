// Package crashinfo explains a crash from the faulting instruction: it
// decodes the instruction at the crashing context's instruction pointer from
// the dump's memory (x86, amd64, arm in ARM and Thumb state, arm64, with
// golang.org/x/arch's decoders and a small Thumb load/store decoder of its
// own), computes the memory the instruction accesses (address, size, read or
// write) and where it moves the instruction pointer, from the context's
// registers, and derives rust-minidump's crash_info facts from them: the
// adjusted address (a null pointer with an offset, or the real target of an
// amd64 non-canonical access), the possible bit flips of the crash address,
// likely guard pages, and the inconsistencies between the OS's crash reason
// and the instruction or the memory map.
//
// Analyze takes plain inputs (architecture, platform, registers, a memory
// reader, the exception, the process's memory map) and returns a Result;
// AnalyzeDump gathers them from a minidump's streams as the processor read
// them (DumpStreams: the dump is read once). Neither fails nor panics: code
// bytes that are missing, truncated or undecodable give no instruction and
// no accesses. The rules follow rust-minidump's minidump-processor
// (op_analysis and processor.rs); docs/crash-analysis.md lists where we
// decide differently.
package crashinfo
