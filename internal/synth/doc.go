// Package synth writes minidumps.
//
// A Builder collects streams (system information, exception, threads with
// their register contexts and stacks, modules with CodeView records, memory
// regions, Breakpad and Linux extension streams, raw streams) and lays them
// out in the Windows/Breakpad minidump format. cmd/core2md uses it to write
// the minidumps it converts from ELF core files; tests use it to make small,
// exactly known dumps, with internal/testkit/synthkit for what only they
// write (stack memory built word by word, CPU and version fields, ...).
//
// All supported architectures (x86, amd64, arm, arm64) are little-endian, and
// so is everything this package writes.
package synth
