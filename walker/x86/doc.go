// Package x86 recovers caller frames on 32-bit x86, in Breakpad's order:
// STACK WIN (FrameData programs and FPO records, with Breakpad's
// .raSearchStart heuristics and its "call frame info with scanning"
// correction), then STACK CFI, then the EBP chain, then stack scanning.
//
// In the default (non-Breakpad) mode, when the dump holds the code before a
// scanned candidate (walker.Env.Code), a word no call instruction precedes
// is skipped and a direct call to the current function is preferred
// (retaddr.Scan); with or without code, a word the symbols rule out (a
// function's first byte, the entry point, _fini, _init's padding:
// retaddr.CheckSymbols) is skipped. It also reads a prologue at frame 0 (entry.go),
// returns from a frameless frame 0 through [esp] when the code confirms it,
// or, where the dump holds none of its code, when the symbols and the frame
// record above it do (byFramelessLeaf, retaddr.FramelessLeafWithoutCode), takes a realigned frame's caller from its saved
// pre-alignment stack pointer when its CFI cannot give it (byDRAP), and,
// above a sigreturn trampoline, recovers the interrupted frame from the
// kernel's sigframe or rt_sigframe (signal.go); where the trampoline's
// code is not in the dump (the vDSO's, a static glibc's restorer inside a
// function without CFI) the frame is taken by its layout alone: signal
// number, rt pointers, user segment selectors (sigframe_nocode.go). STACK WIN programs are split
// as symfile's evaluator splits them (symfile.ProgramTokens). A frame
// record whose return address the dump's memory map shows to be data
// (walker.Walker.NotCode) gives way to a scan from above the record, as
// a STACK WIN $eip in no module does (Breakpad's rule).
//
// Like every walker, it names a frame unwound by rules read from a
// prologue in the module's ELF file walker.RuleModulePrologue (walker.Env.Native;
// trust: call frame info), notes each signal frame it unwinds
// (walker.NoteSignalFrame) so that no scan takes the saved registers for
// return addresses, and scans through retaddr.Scan over retaddr.ScanWords
// (Breakpad's window in both modes).
//
// The methods, per mode and OS, are the ordered rule tables of rules.go,
// which Caller tries in order (docs/design.md, "Caller rules").
package x86
