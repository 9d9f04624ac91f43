//go:build unix

package fetch

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this id may be running
// (true when it cannot tell).
func processAlive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
