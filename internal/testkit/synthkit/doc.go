// Package synthkit is the tests' half of internal/synth, the minidump
// writer core2md uses: Stack builds stack memory in the spirit of
// Breakpad's test_assembler (push words, mark labels, refer to labels
// defined later), and the helpers fill what only tests write (an x86 CPU's
// cpuid fields, a module's version, NB10 CodeView records, auxv vectors,
// the environment stream, Breakpad info).
package synthkit
