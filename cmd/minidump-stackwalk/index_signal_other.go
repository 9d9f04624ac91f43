//go:build !unix

package main

// catchSignals does nothing outside unix: a run ended by Ctrl-C leaves
// its unfinished index writes as temporary files, which a later run
// removes.
func (m *indexDirs) catchSignals() (stop func()) { return func() {} }
