// Package symfile reads Breakpad text symbol files (.sym) and answers the
// questions of the stack walkers and the symbolizer: which function, source
// line and inline chain cover a module-relative address, which STACK CFI
// rules and which STACK WIN record apply there.
//
// A File is built in one fast pass over a memory-mapped (or decompressed)
// image of the symbol file: the pass records only the offsets of the records
// and sorted address tables. FUNC, line, INLINE and CFI records are parsed on
// demand when a lookup touches them, so a walk pays only for what it uses.
//
// Breakpad's rules are kept: the first record at an address wins, a PUBLIC
// record names an address only when no FUNC lies between it and the address,
// STACK WIN type 4 (FrameData) is preferred over type 0 (FPO).
//
// The postfix evaluator (Evaluate, EvaluateValue) runs CFI rules and STACK WIN
// programs. A Supplier finds the symbol file of a module in Breakpad's
// directory layout and loads each at most once.
package symfile
