// Package oracle locates Breakpad's reference binaries (minidump_stackwalk,
// minidump_dump, dump_syms from the npm package minidump@0.26.0), which tests
// run to get independent expected outputs, and skips a test with a clear
// message when they are not installed.
//
// The directory is $BREAKPAD_ORACLE_DIR, else DefaultDir. .ci/run installs
// the package and sets the variable.
package oracle
