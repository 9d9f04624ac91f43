//go:build linux || darwin || freebsd || netbsd || openbsd

package minidump

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of f read-only. A nil slice means "not mapped, read instead".
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
