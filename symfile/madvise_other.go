//go:build !linux

package symfile

// Advice is only a speed-up; Go's syscall package has no madvise outside
// Linux, so elsewhere the kernel's defaults stand.
const (
	madvRandom = iota
	madvDontNeed
	madvPopulateRead
	madvHugePage
)

// mapNoReserve is Linux's MAP_NORESERVE (see madvise_linux.go); other
// systems commit anonymous memory as it is touched.
const mapNoReserve = 0

func madvise([]byte, int) error { return nil }
