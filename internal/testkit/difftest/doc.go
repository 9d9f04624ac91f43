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
// The tests run Breakpad's binary (located by internal/testkit/oracle) and
// ours on each case and require (a) identical -m output with
// --breakpad-compat, and (b) by default at least as many leading true frames
// as Breakpad recovers, and no invented frame where Breakpad stopped with a
// correct chain. TestDifferential runs a fixed seed set; DIFFTEST_CASES=N
// runs TestDifferentialLong over N random cases per flavour (DIFFTEST_SEED,
// DIFFTEST_FLAVOR; DIFFTEST_BIN runs another build of ours, e.g. an older
// commit's, for before/after numbers). TestFramelessUnderRecord holds the
// 32-bit ARM walk to the generated cases of one shape: a crash in a
// frameless function without CFI under a caller with a frame record.
//
// GenerateCode builds the same case (chain, stack, symbols) with code in
// the dump, for the walker's call-site check (walker/internal/retaddr):
// every module's executable segment is laid out as a compiler would, in
// encodings taken from the GNU assemblers (TestCallEncodingsMatchAssembler,
// TestCodeLayoutDisassembles check them with as and objdump of each
// architecture, Thumb and arm64e included). Before each true return
// address is the call that made it: a direct call to the callee (BL, E8),
// an indirect one (BLX rN, BLR/BLRAA xN, FF D0, FF 15 ...), or a direct
// call to another function that tail-called the callee. The other call
// sites, where stale return addresses point, call some function directly
// or indirectly, or are ordinary instructions. Windows dumps (full memory)
// hold every module's code; the others, as Breakpad's Linux client and
// core2md save it, 256 bytes around the instruction pointer and 64 bytes
// before and after every stack word and register that points into code.
// TestDifferential runs each fixed seed with code too: --breakpad-compat
// output must still equal Breakpad's, and the default walk must recover as
// many true frames as without code and as Breakpad (knownCodeShortfalls
// lists the exceptions: tail calls). DIFFTEST_CODE=1 adds the code variant
// to TestDifferentialLong, with each case where code costs frames and its
// cause; DIFFTEST_REPORT=N prints the first N failures in full.
// TestDifferential logs each flavor's true frames recovered, the figures to
// compare before and after a walker change (DIFFTEST_BIN=older build).
//
// TestCorpusAddedFrames walks every dump of the shared corpus
// (../shared/corpus: Breakpad's, the generated ones with and without
// symbols, rust-minidump's) and holds each frame the default walk has and
// Breakpad's has not to evidence: gdb's backtrace of the same crash, the
// symbol file (CFI, a scan the symbols and CFI accept), the dump's code
// (a call site, a prologue), or the stack's own records (a realigned
// frame's saved stack pointer, a signal frame); it says which for each,
// and fails on a frame with none: the walker never invents a frame.
package difftest
