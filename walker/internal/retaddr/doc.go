// Package retaddr holds what the arm and arm64 walkers share about return
// addresses: the plausibility checks and CFI verification of their extended
// (non-Breakpad) mode, the stack scan step of both modes (ScanCaller), and
// symbol questions (SameFunction, FunctionKnown).
package retaddr
