//go:build unix

package symfile

import (
	"os"
	"syscall"
)

// reserve returns n bytes of anonymous memory, committed only as they are
// written (mapNoReserve), and the function that releases them; nil when
// it cannot. A
// decompressed file is read into it: no buffer doublings (which cost three
// times the data's size at their peak) and no final copy.
func reserve(n int64) ([]byte, func([]byte) error) {
	if n <= 0 || n != int64(int(n)) {
		return nil, nil
	}
	pg := int64(os.Getpagesize())
	n = (n + pg - 1) / pg * pg
	mem, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		return nil, nil
	}
	return mem, func(used []byte) error { return syscall.Munmap(used) }
}

// trim gives back the pages of mem after its first n bytes, and returns
// the part kept (what the release function must be given).
func trim(mem []byte, n int) []byte {
	pg := os.Getpagesize()
	keep := (n + pg - 1) / pg * pg
	if keep < len(mem) {
		if syscall.Munmap(mem[keep:]) == nil {
			mem = mem[:keep]
		}
	}
	return mem
}
