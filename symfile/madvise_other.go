//go:build unix && !linux

package symfile

// Advice is only a speed-up; Go's syscall package has no madvise outside
// Linux, so elsewhere the kernel's defaults stand.
const (
	madvRandom = iota
	madvDontNeed
	madvPopulateRead
)

func madvise([]byte, int) error { return nil }
