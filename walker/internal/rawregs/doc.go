// Package rawregs keeps, beside a walked frame's minidump.Context, the raw
// register array Breakpad's ARM and ARM64 frames hold: registers marked
// invalid keep stale values (a scanned frame copies its callee's), and
// Breakpad's frame-pointer steps read LR and the frame pointer whatever
// their validity. The arm and arm64 walkers share it.
package rawregs
