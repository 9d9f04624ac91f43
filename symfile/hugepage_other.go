//go:build !linux

package symfile

// transparentHugePageSize: huge pages on request (MADV_HUGEPAGE) are
// Linux's; FreeBSD promotes pages on its own, and the others have none.
func transparentHugePageSize() int { return 0 }
