// Package processor turns a minidump (Process) or a microdump
// (ProcessMicrodump) and a symbol supplier into a ProcessState, the one
// processed model every printer of package report reads: system
// information, crash reason, every thread's walked and symbolized stack,
// the modules in Breakpad's print order with their symbol status, the facts
// only the JSON report shows (Facts), the status and the problems met
// (Failures, which make the report incomplete, and Warnings), and
// Symbolize, which names stack words with the symbol files the walk loaded
// (-s, -d). The dump is read here once; no printer reads it again.
// Unreadable gives the state of a file that could not be read at all.
//
// Processing has two phases: a read phase that reads every stream the
// reports need into one struct (each value with its error, the stacks'
// bytes copied, the JSON-only facts, crashinfo's inputs), and a walk phase,
// which ProcessMicrodump shares, that walks the planned threads and gives
// each module its symbol status. Problems are keyed by a typed stream id
// (Stream). The state holds values, never readers: no minidump.File, memory
// list or raw stream record (SystemInfo.Minidump copies the numbers the
// JSON report needs) and no lookup structure or type of the walk: Frame and
// Module are the state's own copies of the walker's frames and modules
// (Trust, Rule, Step, SymbolStatus, Mode and NativeModule name the
// walker's vocabulary, so that the command imports no walker package), and
// Exception is its own copy of the exception record. It shares plain
// values with the packages below it, each owning its memory: crashinfo's
// Result and, of package minidump, only decoded values (TestModelSharesOnlyDumpValues
// lists them): the register context, and the records of Facts (lsb-release,
// handles, limits, Crashpad's annotations), which minidump copies out of
// the file. The register context stays minidump's Context by decision: it
// is a fixed-size value (the architecture, the registers, their validity
// bits) with the register tables the walkers and printers share (names,
// print order, word size); a copy into a processor type would duplicate
// those tables and copy every frame's registers for nothing, since the
// walker already hands over a value. What every printer derives from a
// frame or module is a method here, written once (Module.Name, DebugName,
// Frame.ReturnAddress, LoadedModule and the offsets): report's printers
// and batch triage's results read the one model.
// Outside Breakpad's mode the state also holds CrashAnalysis (package
// crashinfo: the faulting instruction and its memory accesses).
//
// It follows Breakpad's MinidumpProcessor: the requesting (crashed) thread is
// walked from the exception stream's context, the thread that wrote the dump
// (BreakpadInfo) is not walked (it stays in Threads with ThreadDumpThread;
// BreakpadThreads gives Breakpad's numbering), and a thread's stack memory is
// its stack descriptor, or the memory-list region holding the descriptor's
// start. A thread's context counts as complete whatever its flags say
// (Breakpad prints and walks from every register; TestFrameZeroIgnoresContextFlags).
// Threads are walked in parallel by a bounded number of workers (a few
// threads without symbols one after the other: starting workers would cost
// more than their walks); a module's symbols are loaded at most once (cached by code file, as
// Breakpad's resolver does; Symbolize reads that cache after the walk; the
// suppliers may keep their own: symfile's remember parsed files so that one
// supplier serves many dumps, batch's symcache bounds them for a run). A
// thread's stack bytes are copied out of the dump, so the ProcessState stays
// printable after the dump is closed. Each walking worker reuses its
// walker's frames from walk to walk (walker.Walks), copying a walk's frames
// into the thread's right after it; Options.Walks keeps that memory, and a
// slab for the threads' frames, from one dump to the next for a caller that
// drops each ProcessState before its next (batch's workers).
// The walks keep to a budget, in every mode (docs/limits.md): frames
// across threads (Options.MaxTotalFrames: the requesting thread may keep
// half, the others share the rest) and time (Options.MaxTime). Breakpad
// has neither; only hostile dumps reach them. A stack cut by either is a
// Failure (ProcessState.Outcome: StatusPartial). A thread whose stack cannot
// be read is noted in Errors, and problems of one kind are noted five
// times, then counted (so is a stream error joining one error per entry).
// Options.WalkOnlyRequesting walks the requesting thread alone, for
// outputs that print no other.
//
// Deliberate differences from Breakpad, each with its evidence in the tests
// (conformance_test.go, gdb_test.go, perf_test.go); Options.Mode
// ModeBreakpad brings back Breakpad's behaviour, all of it at once:
//
//   - Entry function. On Linux and Android the walk ends at the program's
//     entry function: the frame whose function starts at AT_ENTRY (auxv), or
//     without an auxv stream the main module's _start. The kernel entered
//     _start with no return address; Breakpad walks on and prints one or two
//     junk frames (a stack address as IP, a scanned vDSO hit). gdb's
//     backtraces of the same crashes end at _start.
//     Breakpad mode restores Breakpad's walk.
//   - Memory map. Outside Breakpad's mode the walk gets the dump's
//     executable mappings (the memory info list, else Linux's maps
//     stream: executableMap, walker.Env.Executable); on 32-bit ARM a CFI
//     caller pc in no module and in no executable mapping is no return
//     address (arm-throw with its program's ELF file: a heap word read
//     from unwind_phase2's rewritten save area). Breakpad takes it.
//   - Split images. When one image is mapped as several module entries with
//     the same code file and debug identifier, adjacent within ELF segment
//     alignment (node: 0x400000, 0xb72000, 0x2600000), symbols and CFI are
//     looked up relative to the first entry, where the symbol file's
//     addresses start. Breakpad uses the entry containing the address and
//     misnames every frame in the later entries (node.sym proves which name
//     is right). Printed module offsets stay relative to the containing
//     entry, as Breakpad prints them. Breakpad mode restores
//     Breakpad's lookups.
//   - x86 .cbCalleeParams. A STACK WIN program's .cbCalleeParams (and the
//     .raSearchStart derived from it) uses the parameter size of the frame's
//     callee. Breakpad's loop over earlier frames has no break and uses
//     frame 0's instead, which misplaces the search below a deep stack
//     (walker/x86 TestCalleeParameterSize). No corpus dump is affected.
//     Breakpad mode restores Breakpad's choice.
//   - Stack memory. When a thread's stack descriptor does not hold the
//     bytes, Breakpad looks the descriptor's start up in the
//     MemoryListStream only: Windows full-memory dumps (descriptors with RVA
//     0, the stack in the Memory64ListStream) and dumps with an empty
//     descriptor get just the context frame. We also read the
//     Memory64ListStream and, failing the descriptor, take the region
//     holding the stack pointer (TestStackMemoryFallbacks; internal/testkit/difftest
//     flavors windows-amd64-fullmem and linux-arm64-nostackdesc).
//     Breakpad mode restores Breakpad's rule.
//   - Overlapping modules. On Linux and Android Breakpad truncates the
//     lower of two overlapping modules (relocated shared-library mappings
//     do overlap) and leaves out a module starting where a stored one
//     starts; elsewhere, and on Linux for a shared base, it rejects the
//     whole module list: no module is printed and no frame gets a module or
//     symbols. We apply the truncation on every platform and never reject
//     the list, which gives what the oracle prints for the same layout in
//     an Android dump (TestOverlappingModules).
//     Breakpad mode restores the rejection.
//   - Call sites. The walkers get all of the dump's memory as code
//     (walker.Env.Code: Linux dumps hold code around the crash address,
//     full-memory and Crashpad dumps more, converted cores every stack
//     word's). A scanned word is a return address only if a call
//     instruction ends there: words after a jmp, ret or any other
//     instruction (function pointers, stale values) are skipped, and a
//     direct call to the callee's own function is preferred over earlier
//     candidates (glibc's __libc_start_call_main on ARM keeps stale return
//     addresses in its 300-byte frame). Without code the scans are
//     Breakpad's. Breakpad takes the first word that points into a function
//     (TestCallSiteEvidence disassembles every changed frame of the corpora
//     with objdump and compares the rest with gdb's backtrace where one
//     exists; the conformance test compares those frames with
//     Options.NoCode). Options.NoCode, and Breakpad mode, restore
//     Breakpad's scans.
//   - The modules' own files. With Options.Native (elfsupplier, for
//     --use-local-debuginfo) the walkers also read a module's ELF file
//     where its symbol file falls short: unwind rules from the file's
//     .eh_frame, .debug_frame and .ARM.exidx, else from its prologues;
//     its executable bytes as code, after the dump's (walker.Env.Native;
//     elfsupplier's TestWalksWithLocalDebugInfoEqualGDB). Breakpad mode
//     reads none of it.
package processor
