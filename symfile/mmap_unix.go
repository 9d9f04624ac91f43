//go:build unix

package symfile

import (
	"os"
	"syscall"
)

// mapFile maps a file read-only. An empty file maps to an empty slice.
func mapFile(fh *os.File, size int64) ([]byte, func() error, error) {
	if size == 0 {
		return nil, func() error { return nil }, nil
	}
	if size != int64(int(size)) {
		return nil, nil, syscall.EFBIG
	}
	data, err := syscall.Mmap(int(fh.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}

// prefaultPages maps data[lo:hi] ahead of the index pass; errors (older
// kernels, other systems) only lose the speed-up.
func prefaultPages(data []byte, lo, hi int) {
	pg := os.Getpagesize()
	lo = lo / pg * pg
	if hi <= lo {
		return
	}
	_ = madvise(data[lo:hi], madvPopulateRead)
}

// releasePages drops the pages of data[lo:hi] from the process: the index
// pass reads every byte once, and keeping the whole file resident would make
// the process's RSS the size of the file. The page cache keeps the pages, so
// a later lookup faults them back cheaply.
func releasePages(data []byte, lo, hi int) {
	pg := os.Getpagesize()
	lo = (lo + pg - 1) / pg * pg // only whole pages inside the range
	if hi != len(data) {
		hi = hi / pg * pg
	}
	if hi <= lo {
		return
	}
	_ = madvise(data[lo:hi], madvDontNeed)
}

// adviseRandom tells the kernel that data is read at random places, so a
// lookup's page fault does not read ahead megabytes of a cold file.
func adviseRandom(data []byte) {
	if len(data) > 0 {
		_ = madvise(data, madvRandom)
	}
}
