// Package walker holds what every architecture's stack walker shares: the
// Frame and its Trust, the loaded-module map, the symbol source, stack
// scanning, CFI rule application and the walk loop with Breakpad's stop rules.
//
// An architecture package (walker/x86, walker/amd64, walker/arm, walker/arm64)
// implements Arch: it recovers the caller of the innermost physical frame of
// a stack. Walk runs the loop: it starts at the context frame, symbolizes each
// frame (expanding inlined calls into frames of TrustInline placed before
// their physical frame, as Breakpad does), asks the Arch for the caller, and
// stops when no method works, when the frame cap is reached, or when the
// Arch's termination rule says so (Terminate implements Breakpad's shared
// rule: caller IP below 4096, caller SP not above callee SP). Architectures
// make their frames with Walker.NewFrame, so that a Walks (one goroutine's
// walks, one after another) reuses them and its Walker from walk to walk.
//
// Addresses used for symbol, CFI and STACK WIN lookups are Frame.Instruction:
// the context frame's IP, and for a caller the return address minus one
// (arch-specific), so that a call at the end of a function is attributed to
// it. Printed addresses are Frame.ReturnAddress().
//
// Env.Native gives, outside Breakpad's mode, what the modules' own
// executable files show where their symbol files fall short: unwind
// rules (CFIRules falls back to them; CFIRulesFrom says whence: a frame
// unwound by rules read from a prologue, which no compiler wrote, has
// RuleModulePrologue, its trust still TrustCFI, Breakpad's "call frame
// info"), executable bytes (a scan candidate there counts as in a
// function; the processor serves them as Env.Code).
//
// Env.Executable, outside Breakpad's mode, is the dump's memory map
// reduced to its executable mappings: Walker.NotCode tells data (no
// module, no executable mapping) from code outside every module (JIT),
// which a caller pc may be. CallerRules.Try refuses a caller whose pc
// is data, whichever rule of whichever architecture found it (a signal
// frame's interrupted pc aside), and tries the next rule.
//
// Env.Mode is the one switch between Breakpad's rules (Breakpad) and ours
// (Extended, the zero value); every architecture reads it the same way:
// it chooses an ordered table of caller rules (CallerRules, tried in
// order by Try) in which the Breakpad differences are rules of the
// Extended tables only (docs/design.md, "Caller rules").
// Each frame records the Rule that found it; with Env.Trace it also
// records the Steps tried and rejected before it, and the Stack records
// why the walk ended (End).
package walker
