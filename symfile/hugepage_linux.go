package symfile

import (
	"bytes"
	"os"
	"strconv"
)

// thpSysfs is where Linux describes its transparent huge pages.
const thpSysfs = "/sys/kernel/mm/transparent_hugepage/"

// transparentHugePageSize returns the size of the huge pages that Linux
// gives a region advised MADV_HUGEPAGE (hpage_pmd_size: 2 MiB on amd64 and
// on arm64 with 4 KiB pages, 512 MiB with 64 KiB pages), or 0 when it gives
// none: "never" in sysfs, or no sysfs entry (a kernel without THP, or a
// container that hides it). It reads sysfs each time; the index pass asks
// once per large arena (arena.reserve), a small file never.
func transparentHugePageSize() int {
	enabled, err := os.ReadFile(thpSysfs + "enabled")
	if err != nil || bytes.Contains(enabled, []byte("[never]")) {
		return 0
	}
	b, err := os.ReadFile(thpSysfs + "hpage_pmd_size")
	if err != nil {
		return 0
	}
	return validHugePageSize(bytes.TrimSpace(b), os.Getpagesize())
}

// validHugePageSize parses a huge page size, which must be a power of two
// larger than a page and at most 1 GiB; else it returns 0.
func validHugePageSize(b []byte, page int) int {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n <= int64(page) || n > 1<<30 || n&(n-1) != 0 {
		return 0
	}
	return int(n)
}
