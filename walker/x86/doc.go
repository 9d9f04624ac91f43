// Package x86 recovers caller frames on 32-bit x86, in Breakpad's order:
// STACK WIN (FrameData programs and FPO records, with Breakpad's
// .raSearchStart heuristics and its "call frame info with scanning"
// correction), then STACK CFI, then the EBP chain, then stack scanning.
package x86
