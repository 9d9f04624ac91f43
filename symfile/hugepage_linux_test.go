package symfile

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
)

func TestHugePageSize(t *testing.T) {
	for _, c := range []struct {
		enabled, size string
		want          int
	}{
		{"always [madvise] never\n", "2097152\n", 2 << 20},
		{"[always] madvise never\n", "2097152\n", 2 << 20},
		{"always madvise [never]\n", "2097152\n", 0},
		{"always [madvise] never\n", "536870912\n", 512 << 20},
		{"always [madvise] never\n", "1073741824", 1 << 30},
		{"always [madvise] never\n", "4096", 0},       // a page is no huge page
		{"always [madvise] never\n", "3145728", 0},    // not a power of two
		{"always [madvise] never\n", "2147483648", 0}, // over 1 GiB
		{"always [madvise] never\n", "0", 0},
		{"always [madvise] never\n", "-2097152", 0},
		{"always [madvise] never\n", "", 0},
		{"always [madvise] never\n", "2M", 0},
	} {
		if got := hugePageSize([]byte(c.enabled), []byte(c.size), 4096); got != c.want {
			t.Errorf("hugePageSize(%q, %q) = %d, want %d", c.enabled, c.size, got, c.want)
		}
	}
}

// TestReserveAligned: the memory starts at a multiple of the alignment,
// has the size asked (in whole pages), can be written at both ends, and
// its release unmaps it.
func TestReserveAligned(t *testing.T) {
	pg := os.Getpagesize()
	for _, c := range []struct{ n, align int }{{1, 0}, {3 << 20, 2 << 20}, {5<<20 + 1, 2 << 20}, {100, pg}} {
		mem, free := reserveAligned(int64(c.n), c.align)
		if mem == nil {
			t.Fatalf("reserveAligned(%d, %d) refused", c.n, c.align)
		}
		if want := (c.n + pg - 1) / pg * pg; len(mem) != want || cap(mem) != want {
			t.Errorf("reserveAligned(%d, %d): len %d cap %d, want %d", c.n, c.align, len(mem), cap(mem), want)
		}
		if c.align > 0 && uintptrOf(mem)%uintptr(c.align) != 0 {
			t.Errorf("reserveAligned(%d, %d) starts at %#x", c.n, c.align, uintptrOf(mem))
		}
		mem[0], mem[len(mem)-1] = 1, 1
		if err := free(); err != nil {
			t.Errorf("release: %v", err)
		}
	}
	if mem, _ := reserveAligned(0, 2<<20); mem != nil {
		t.Error("reserveAligned(0) gave memory")
	}
}

// advice records the advice given to an index pass's arenas, and passes
// it on to madvise unless fail is set.
type advice struct {
	fail    bool
	regions [][]byte
}

func (a *advice) advise(b []byte, kind int) error {
	if kind != madvHugePage {
		return errors.New("unexpected advice")
	}
	a.regions = append(a.regions, b)
	if a.fail {
		return syscall.EINVAL
	}
	return madvise(b, kind)
}

// indexOnDisk indexes a file of PUBLIC records of size bytes as one on
// disk (arenas), with adv's advice, and returns it with a reference index
// of the same data built in memory.
func indexOnDisk(t *testing.T, size int64, adv *advice) (got, want *File) {
	t.Helper()
	var sym bytes.Buffer
	if err := hostile.PublicSymbols(&sym, size); err != nil {
		t.Fatal(err)
	}
	data := sym.Bytes()
	want, err := NewFile(data, "public.sym")
	if err != nil {
		t.Fatal(err)
	}
	got = &File{name: "public.sym", data: data, unmap: func() error { return nil }}
	got.buildIndex(256<<10, &diskSource{r: bytes.NewReader(data), release: func(lo, hi int) {}, advise: adv.advise})
	t.Cleanup(func() { got.Close() })
	if got.pubMem == nil {
		t.Fatal("the records are not in reserved memory")
	}
	if !slices.Equal(got.pubs.all(), want.pubs.all()) {
		t.Fatalf("%d PUBLIC records indexed with advice, %d in memory, or they differ", got.pubs.len(), want.pubs.len())
	}
	return got, want
}

// TestArenaHugePages: an arena whose records grow past half a huge page
// is advised MADV_HUGEPAGE from a huge page boundary inside it (the
// kernel marks the region "hg" in /proc/self/smaps); one that stays
// smaller is not; and the index is the same when the advice fails.
func TestArenaHugePages(t *testing.T) {
	hp := transparentHugePageSize()
	if hp == 0 || hp > 32<<20 {
		t.Skipf("transparent huge pages unavailable or too large here (%d bytes)", hp)
	}
	// Under half a huge page of PUBLIC records (12 bytes each in the
	// narrow layout, about 24 bytes of the file), in an arena of over a huge page (a record
	// per 8 bytes of the file): no advice.
	var small advice
	indexOnDisk(t, int64(hp)/2, &small)
	if len(small.regions) != 0 {
		t.Errorf("an arena of %d-byte huge pages advised for %d bytes of records", hp, hp/2/24*12)
	}

	var large advice
	f, _ := indexOnDisk(t, 4*int64(hp), &large)
	base := uintptrOf(asBytes(f.pubs.narrow))
	records := uintptr(len(asBytes(f.pubs.narrow)))
	if len(large.regions) != 1 {
		t.Fatalf("%d regions advised for %d bytes of records, want 1", len(large.regions), records)
	}
	r := large.regions[0]
	at := uintptrOf(r)
	if base%uintptr(hp) != 0 || at%uintptr(hp) != 0 || at < base+uintptr(hp/2) || at > base+records+uintptr(hp) {
		t.Errorf("arena at %#x (%d bytes of records), advised from %#x: want both on %d-byte boundaries, from half a huge page to one past the records", base, records, at, hp)
	}
	if flags := vmFlags(t, at); !slices.Contains(flags, "hg") {
		t.Errorf("the kernel's flags of the advised region: %v, no hg", flags)
	}

	failing := advice{fail: true}
	indexOnDisk(t, 4*int64(hp), &failing) // compares the records
	if len(failing.regions) != 1 {
		t.Errorf("%d regions advised, want 1", len(failing.regions))
	}
}

// TestHugeAdviceUpfront: the arenas of a file of at least
// hugeUpfrontPages huge pages are advised from their start.
func TestHugeAdviceUpfront(t *testing.T) {
	hp := transparentHugePageSize()
	if hp == 0 {
		t.Skip("transparent huge pages unavailable here")
	}
	var a advice
	big := newHugeAdvice(int64(hp), hugeUpfrontPages*int64(hp), a.advise)
	smaller := newHugeAdvice(int64(hp), hugeUpfrontPages*int64(hp)-1, a.advise)
	tiny := newHugeAdvice(int64(hp)-1, hugeUpfrontPages*int64(hp), a.advise)
	if big.size != hp || big.from != 0 || smaller.size != hp || smaller.from != hp/2 || tiny.size != 0 {
		t.Errorf("advice for a file of %d huge pages %+v, one byte less %+v, an arena under a huge page %+v",
			hugeUpfrontPages, big, smaller, tiny)
	}
}

// vmFlags returns the VmFlags of the mapping holding addr, from
// /proc/self/smaps.
func vmFlags(t *testing.T, addr uintptr) []string {
	fh, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := smapsRange(line); ok {
			in = lo <= addr && addr < hi
		} else if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return strings.Fields(rest)
		}
	}
	t.Fatalf("no mapping of /proc/self/smaps holds %#x", addr)
	return nil
}

// smapsRange parses a mapping's first line, "lo-hi perms ...".
func smapsRange(line string) (lo, hi uintptr, ok bool) {
	r, _, _ := strings.Cut(line, " ")
	a, b, found := strings.Cut(r, "-")
	if !found {
		return 0, 0, false
	}
	x, err1 := strconv.ParseUint(a, 16, 64)
	y, err2 := strconv.ParseUint(b, 16, 64)
	return uintptr(x), uintptr(y), err1 == nil && err2 == nil
}
