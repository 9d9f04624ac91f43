// Package prologue reads a function's prologue as gdb's prologue analyzers
// do (arm_analyze_prologue, thumb_analyze_prologue,
// aarch64_analyze_prologue, amd64_analyze_prologue, i386_analyze_prologue):
// from the function's first instruction up to a given one, the pushes,
// stores to the stack and stack adjustments give the frame's size (the
// CFA, the stack pointer at the call), where the callee-saved registers
// and the return address were saved, and the frame pointer when one is
// set up. Analyze goes on over conditional branches forward (an early
// exit before the frame is set up, which GCC's shrink-wrapping makes
// common: the frame at a later address is the fall-through path's) and
// stops at other branches and calls, at a write to the stack pointer it
// does not understand and at an instruction it cannot decode, keeping
// what the instructions before it did: the prologue is over by then. The result converts to Breakpad's STACK CFI rules (Rules),
// so that the walkers use it as any CFI, for code no unwind entry covers.
package prologue
