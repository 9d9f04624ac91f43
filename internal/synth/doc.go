// Package synth writes minidumps.
//
// A Builder collects streams (system information, exception, threads with
// their register contexts and stacks, modules with CodeView records, memory
// regions, Breakpad and Linux extension streams, raw streams) and lays them
// out in the Windows/Breakpad minidump format. Tests use it to make small,
// exactly known dumps; cmd/core2md uses it to write the minidumps it converts
// from ELF core files.
//
// Stack helps build stack memory for walker tests, in the spirit of
// Breakpad's test_assembler: push words, mark labels, refer to labels that
// are defined later.
//
// All supported architectures (x86, amd64, arm, arm64) are little-endian, and
// so is everything this package writes.
package synth
