// Package mapfault turns a fault on a memory-mapped file into an error.
//
// The stack walker memory-maps dumps, symbol files and their indexes. When
// such a file is truncated after it was mapped (a crash uploader or a symbol
// store rewriting it in place), reading the lost pages raises SIGBUS, which
// Go treats as a fatal error that kills the process. A goroutine that has
// called Enable (debug.SetPanicOnFault) gets a run-time panic instead, whose
// value has the faulting address; Recover, deferred at a boundary that can
// return an error, turns that panic into an *Error. Functions that read a
// mapping of one known file defer Name to put the file's name on a fault
// passing through them; goroutines started to read a mapping run in a Group,
// whose Wait raises their first panic again in the goroutine that waits for
// them (a fault as its *Error, a bug as a *Panic with the worker's stack),
// so that the one boundary sees it; Throw raises again a fault returned as
// an error.
//
// Faults are enabled only per goroutine, so this changes nothing for code
// that does not ask for it. A nil-pointer dereference is a fault too, with a
// small address: Recover converts only faults at addresses of a page or more,
// and re-raises everything else.
package mapfault
