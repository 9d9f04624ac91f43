// Package walkertest provides the pieces walker tests need: stack memory,
// modules and in-memory symbol files, checks of walked frames, and the
// invariants every walk keeps (CheckWalkInvariants, for the fuzz targets),
// and the check that docs/design.md lists each architecture's caller
// rules as its tables have them (CheckDocumentedRules).
// Use it with internal/testkit/synthkit.Stack to build the stack contents.
package walkertest
