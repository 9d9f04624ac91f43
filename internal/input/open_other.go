//go:build !unix

package input

import "os"

// openRead is os.Open (open_unix.go says why unix differs).
func openRead(name string) (*os.File, error) { return os.Open(name) }
