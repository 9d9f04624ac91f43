// Package retaddr holds the return-address checks shared by the arm and
// arm64 walkers' extended (non-Breakpad) mode.
package retaddr
