// Package walkertest provides the pieces walker tests need: stack memory,
// modules and in-memory symbol files. Use it with internal/synth.Stack to
// build the stack contents.
package walkertest
