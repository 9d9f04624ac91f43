// Package report prints a processed minidump in the text formats of
// Breakpad's minidump_stackwalk: the human-readable report (default), the
// pipe-delimited machine format (-m), the brief requesting-thread summary
// (-b) and the raw stack dump (-d); and, beside Breakpad's formats, the JSON
// report in rust-minidump's schema (docs/json-schema.md): BuildJSON makes a
// JSONReport from a JSONInput (the dump and the walked stacks), WriteJSON
// prints it compact or pretty.
//
// The printers take a *Process, a plain description of everything those
// formats show (system info, crash, threads with their frames and stack
// memory, modules). They make no decisions about the walk: frames, trust and
// symbols arrive already computed. Byte-for-byte agreement with Breakpad is
// the goal; the conformance tests in cmd/minidump-stackwalk compare against
// Breakpad's own outputs in ../shared. One addition: Process.CrashAnalysis
// (the faulting instruction and its accesses, from package crashinfo) adds
// rust-minidump's crash-analysis lines after the crash address; the command
// leaves it nil in --breakpad-compat mode.
package report
