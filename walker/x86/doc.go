// Package x86 recovers caller frames on 32-bit x86, in Breakpad's order:
// STACK WIN (FrameData programs and FPO records, with Breakpad's
// .raSearchStart heuristics and its "call frame info with scanning"
// correction), then STACK CFI, then the EBP chain, then stack scanning.
//
// In the default (non-Breakpad) mode, when the dump holds the code before a
// scanned candidate (walker.Env.Code), a word no call instruction precedes
// is skipped and a direct call to the current function is preferred
// (retaddr.ScanByCallSite).
package x86
