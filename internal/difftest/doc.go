// Package difftest is a differential test of the stack walker against
// Breakpad's minidump_stackwalk on generated dumps.
//
// Generate builds, from a seed, a minidump for one architecture and producer
// flavour (Windows, Linux, macOS/iOS with pointer authentication, Android)
// with a random but valid call chain through generated modules, and the
// modules' .sym files: FUNC with lines, PUBLIC, STACK CFI rules as compilers
// emit them per architecture, x86 STACK WIN programs and FPO records,
// frame-pointer chains, frameless leaves, functions without unwind
// information (forcing the frame pointer or scanning), and junk words that
// look like return addresses. It records the true chain as Breakpad's -m
// output would print it.
//
// The tests run Breakpad's binary (located by internal/oracle) and
// ours on each case and require (a) identical -m output with
// --breakpad-compat, and (b) by default at least as many leading true frames
// as Breakpad recovers, and no invented frame where Breakpad stopped with a
// correct chain. TestDifferential runs a fixed seed set; DIFFTEST_CASES=N
// runs TestDifferentialLong over N random cases per flavour (DIFFTEST_SEED,
// DIFFTEST_FLAVOR; DIFFTEST_BIN runs another build of ours, e.g. an older
// commit's, for before/after numbers). TestFramelessUnderRecord holds the
// 32-bit ARM walk to the generated cases of one shape: a crash in a
// frameless function without CFI under a caller with a frame record.
package difftest
