package symfile

import "github.com/minidump-stackwalk/minidump-stackwalk/internal/mapfault"

// A symbol file and its index are memory-mapped. When one is truncated
// while it is read (a symbol store rewriting it in place), reading the lost
// pages faults; the functions here turn that into a *mapfault.Error naming
// the file instead of a SIGBUS that kills the process (internal/mapfault).
// The openers return it as their error; the lookups, which return no
// error, name the file on the fault as it passes on to the caller's
// boundary (the command's, batch's or stackwalk.Dump.Process's).

// guardMapped runs build, which reads a mapping of the file name, with
// faults enabled, and returns a fault as the error, calling unmap then.
func guardMapped(name string, unmap func() error, build func()) (err error) {
	defer mapfault.Enable()()
	defer func() {
		if err != nil && unmap != nil {
			unmap()
		}
	}()
	defer mapfault.Recover(&err, name)
	build()
	return nil
}
