package symfile

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestReserveBeyondRAM: under the kernel's default overcommit heuristic a
// reservation larger than RAM and swap together is granted (MAP_NORESERVE):
// the index pass reserves about 6.7 times a symbol file's size, so without
// it a 2 GB file on an 8 GB machine fell back to the heap.
func TestReserveBeyondRAM(t *testing.T) {
	mode, err := os.ReadFile("/proc/sys/vm/overcommit_memory")
	if err != nil || string(bytes.TrimSpace(mode)) != "0" || unsafe.Sizeof(uintptr(0)) < 8 {
		t.Skipf("needs vm.overcommit_memory=0 (%q, %v) and a 64-bit address space", mode, err)
	}
	total := meminfoBytes(t, "MemTotal") + meminfoBytes(t, "SwapTotal")
	mem, free := reserve(2 * total)
	if mem == nil {
		t.Fatalf("reserving %d bytes (twice RAM and swap) refused", 2*total)
	}
	mem[0], mem[len(mem)-1] = 1, 1 // committed only where written
	if err := free(); err != nil {
		t.Fatal(err)
	}
}

// meminfoBytes reads a field of /proc/meminfo, in bytes.
func meminfoBytes(t *testing.T, field string) int64 {
	fh, err := os.Open("/proc/meminfo")
	if err != nil {
		t.Skip(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		name, rest, _ := strings.Cut(sc.Text(), ":")
		if name == field {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("/proc/meminfo %s: %v", field, err)
			}
			return kb << 10
		}
	}
	t.Skipf("/proc/meminfo has no %s", field)
	return 0
}
