package symfile

import "syscall"

const (
	madvRandom   = syscall.MADV_RANDOM
	madvDontNeed = syscall.MADV_DONTNEED
	// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14): map a range's
	// pages in one call instead of one page fault per 16 pages.
	madvPopulateRead = 22
	// madvHugePage asks for transparent huge pages (adviseHuge).
	madvHugePage = syscall.MADV_HUGEPAGE
	// mapNoReserve keeps a reservation (reserve) out of the kernel's
	// overcommit heuristic, which refuses one mapping larger than RAM and
	// swap together: the index pass reserves about 6.7 times a symbol
	// file's size and commits only its records. Strict overcommit
	// (vm.overcommit_memory=2) ignores the flag and still refuses, and the
	// caller falls back to the heap.
	mapNoReserve = syscall.MAP_NORESERVE
)

func madvise(b []byte, advice int) error { return syscall.Madvise(b, advice) }
