// Package retaddr holds what the arm and arm64 walkers share about return
// addresses: the plausibility checks and CFI verification of their extended
// (non-Breakpad) mode, the stack scan step of both modes (ScanCaller), and
// symbol questions (SameFunction, FunctionKnown), and the call sites
// before return addresses when the dump holds code (walker.Env.Code):
// ClassifyCallSite decodes the call instruction that ends at an address
// (arm, Thumb, arm64, x86, amd64), Judge compares it with the callee, the
// extended scans (ScanCaller, ScanByCallSite for x86 and amd64) choose
// among candidates by it, and CallSiteContradicts lets a frame-pointer step
// reject a saved return address.
package retaddr
