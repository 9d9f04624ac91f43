// Package amd64 recovers caller frames on x86-64, in Breakpad's order:
// STACK CFI, then (Windows, context frame only) a simulated return from a
// leaf function, then (not Windows) the frame-pointer chain, then stack
// scanning.
package amd64
