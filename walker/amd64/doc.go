// Package amd64 recovers caller frames on x86-64, in Breakpad's order:
// STACK CFI, then (Windows, context frame only) a simulated return from a
// leaf function, then (not Windows) the frame-pointer chain, then stack
// scanning.
//
// In the default (non-Breakpad) mode, when the dump holds the code before a
// scanned candidate (walker.Env.Code), a word no call instruction precedes
// is skipped and a direct call to the current function is preferred
// (retaddr.Scan); with or without code, a word the symbols rule out (a
// function's first byte, the entry point, _fini, _init's padding:
// retaddr.CheckSymbols) is skipped. It also reads a prologue at frame 0 (entry.go),
// returns from a frameless frame 0 through [rsp] when the code confirms it,
// or, where the dump holds none of its code, when the symbols and the frame
// record above it do (byFramelessLeaf, retaddr.FramelessLeafWithoutCode), and, above glibc's sigreturn trampoline, recovers the
// interrupted frame from the kernel's signal frame (signal.go), by its
// layout alone where the trampoline's code is not in the dump (uc_flags,
// uc_link, user selectors: signal_nocode.go). Where CFI
// gives no caller for a function that realigned its stack through a DRAP
// register (its CFA `$r10` or `$r13`, which the caller does not know), the
// caller's rsp is the saved DRAP value below the frame record, checked by
// the return address's copy (realign.go).
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
package amd64
