package symfile

import "syscall"

const (
	madvRandom   = syscall.MADV_RANDOM
	madvDontNeed = syscall.MADV_DONTNEED
	// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14): map a range's
	// pages in one call instead of one page fault per 16 pages.
	madvPopulateRead = 22
)

func madvise(b []byte, advice int) error { return syscall.Madvise(b, advice) }
