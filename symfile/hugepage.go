package symfile

// hugeAdvice gives an arena transparent huge pages once its records are
// large enough to fill them. The arenas are written front to back, and on
// Linux a region advised MADV_HUGEPAGE is then faulted in one huge page
// (2 MiB on amd64) at a time instead of 512 pages: a first run on the
// 1.33 GB stress file faulted 23,000 of its 27,800 pages in the arenas
// (docs/performance.md). Fewer faults and TLB misses win on any machine.
//
// Small arenas keep small pages: a huge page would hold up to its whole
// size for a few KiB of records, and zeroing it costs more than the few
// faults it saves. So an arena is advised from the start only for a file
// of at least hugeUpfrontPages huge pages; otherwise once its records
// fill half a huge page, from the next huge page boundary on. Either way
// the memory held beyond the records is at most one huge page per arena:
// the one the records end in (docs/limits.md).
type hugeAdvice struct {
	size   int                     // the huge page size; 0: none, or advice given
	from   int                     // bytes of records that trigger the advice
	advise func([]byte, int) error // madvise, or a test's
}

// minHugePage is the smallest huge page size of the systems Go runs on:
// smaller arenas do not ask sysfs.
const minHugePage = 2 << 20

// hugeUpfrontPages: a file this many huge pages long (128 MiB with 2 MiB
// pages) has arenas advised from their start. Its records, at the stress
// file's 7% of its bytes, fill several huge pages per arena.
const hugeUpfrontPages = 64

// newHugeAdvice returns the advice for an arena of reserved bytes of a
// file of fileSize bytes.
func newHugeAdvice(reserved, fileSize int64, advise func([]byte, int) error) hugeAdvice {
	if reserved < minHugePage {
		return hugeAdvice{}
	}
	hp := transparentHugePageSize()
	if hp == 0 || reserved < int64(hp) {
		return hugeAdvice{}
	}
	h := hugeAdvice{size: hp, from: hp / 2, advise: advise}
	if fileSize >= hugeUpfrontPages*int64(hp) {
		h.from = 0
	}
	return h
}

// grown is told that the arena mem, aligned to h.size (reserveAligned),
// holds used bytes of records: once they reach h.from it advises mem from
// the first huge page boundary at or after used on, once. An error only
// loses the speed-up.
func (h *hugeAdvice) grown(mem []byte, used int) {
	if h.size == 0 || used < h.from {
		return
	}
	at := (used + h.size - 1) / h.size * h.size
	if at < len(mem) {
		_ = h.advise(mem[at:], madvHugePage)
	}
	h.size = 0
}
