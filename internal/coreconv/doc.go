// Package coreconv converts a Linux ELF core file (read by package coredump)
// into a minidump (written with internal/synth) that Breakpad's
// minidump_stackwalk and this project's minidump-stackwalk can walk. It is
// the conversion behind cmd/core2md and behind minidump-stackwalk's core-file
// input; docs/testdata.md describes what the minidump holds.
package coreconv
