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
	if err != nil {
		return 0
	}
	size, err := os.ReadFile(thpSysfs + "hpage_pmd_size")
	if err != nil {
		return 0
	}
	return hugePageSize(enabled, size, os.Getpagesize())
}

// hugePageSize reads sysfs's enabled ("always [madvise] never", the
// bracketed word the setting) and hpage_pmd_size files: the size, which
// must be a power of two larger than a page and at most 1 GiB, or 0.
func hugePageSize(enabled, size []byte, page int) int {
	if bytes.Contains(enabled, []byte("[never]")) {
		return 0
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 10, 64)
	if err != nil || n <= int64(page) || n > 1<<30 || n&(n-1) != 0 {
		return 0
	}
	return int(n)
}
