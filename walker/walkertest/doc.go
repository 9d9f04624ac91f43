// Package walkertest provides the pieces walker tests need: stack memory,
// modules and in-memory symbol files, checks of walked frames, and the
// invariants every walk keeps (CheckWalkInvariants, for the fuzz targets).
// Use it with internal/testkit/synthkit.Stack to build the stack contents.
package walkertest
