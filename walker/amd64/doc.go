// Package amd64 recovers caller frames on x86-64, in Breakpad's order:
// STACK CFI, then (Windows, context frame only) a simulated return from a
// leaf function, then (not Windows) the frame-pointer chain, then stack
// scanning.
//
// In the default (non-Breakpad) mode, when the dump holds the code before a
// scanned candidate (walker.Env.Code), a word no call instruction precedes
// is skipped and a direct call to the current function is preferred
// (retaddr.Scan). It also reads a prologue at frame 0 (entry.go),
// returns from a frameless frame 0 through [rsp] when the code confirms it
// (byFramelessLeaf), and, above glibc's sigreturn trampoline, recovers the
// interrupted frame from the kernel's signal frame (signal.go).
package amd64
