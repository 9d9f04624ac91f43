//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package minidump

import "os"

// mapFile never maps on this platform; Open reads through the descriptor.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	return nil, nil, nil
}
