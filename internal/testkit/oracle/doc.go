// Package oracle gives tests their independent oracles: it locates
// Breakpad's reference binaries (minidump_stackwalk, minidump_dump,
// dump_syms from the npm package minidump@0.26.0), skipping a test with a
// clear message when they are not installed, and reads the oracle outputs
// kept in the repository: gdb backtraces written by
// scripts/gen-testdata/gdb_frames.py (ReadGDBFrames) and Breakpad's -m
// output (ReadMachineFrames); and it lists a PDB's procedure records as
// llvm-pdbutil reads them (PDBProcs). UntilForeign cuts a walk at its
// first frame the oracle lacks, for comparisons with another walker.
//
// The binaries' directory is $BREAKPAD_ORACLE_DIR, else DefaultDir(), in the
// tests' cache directory (internal/testkit/corpus.TestCacheDir). .ci/run
// installs the package and sets the variable.
package oracle
