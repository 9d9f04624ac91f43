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
func reserve(n int64) ([]byte, func() error) {
	return reserveAligned(n, 0)
}

// reserveAligned is reserve with the memory's start aligned to align (a
// transparent huge page size; 0 or a page: no alignment), so that every
// align bytes of it from the start can be one huge page (hugeAdvice): the
// mapping is align bytes longer, and the slack before and after the
// memory returned is address space only, never touched. The release
// function unmaps the whole mapping.
func reserveAligned(n int64, align int) ([]byte, func() error) {
	pg := int64(os.Getpagesize())
	if align <= int(pg) {
		align = 0
	}
	if n <= 0 || n > int64(^uint(0)>>1)-int64(align)-pg {
		return nil, nil
	}
	n = (n + pg - 1) / pg * pg
	mapped, err := syscall.Mmap(-1, 0, int(n)+align, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		return nil, nil
	}
	skip := 0
	if align > 0 {
		skip = (align - int(uintptrOf(mapped)%uintptr(align))) % align
	}
	return mapped[skip : skip+int(n) : skip+int(n)], func() error { return syscall.Munmap(mapped) }
}
