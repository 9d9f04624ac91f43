package microdump

import (
	"fmt"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
)

// TestManyModulesDescending parses a microdump whose modules come in
// descending address order (the worst order for the earlier sorted-slice
// map): every module is kept, in ascending order.
func TestManyModulesDescending(t *testing.T) {
	const n = 20000
	d, err := Parse(hostile.Microdump(n))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Modules) != n {
		t.Fatalf("%d modules, want %d", len(d.Modules), n)
	}
	for i := 1; i < n; i++ {
		if d.Modules[i].Base <= d.Modules[i-1].Base {
			t.Fatalf("module %d at %#x not above module %d at %#x", i, d.Modules[i].Base, i-1, d.Modules[i-1].Base)
		}
	}
}

// BenchmarkStoreDescending stores n modules in descending order in the
// B-tree map and in the earlier sorted-slice map (docs/limits.md).
func BenchmarkStoreDescending(b *testing.B) {
	for _, n := range []int{10_000, 80_000} {
		b.Run(fmt.Sprintf("btree/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				m := moduleMap{truncateUpper: true}
				for i := range n {
					m.store(uint64(n-i)*0x1000, 0x1000, i)
				}
			}
		})
		b.Run(fmt.Sprintf("slice/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				m := sliceModuleMap{truncateUpper: true}
				for i := range n {
					m.store(uint64(n-i)*0x1000, 0x1000, i)
				}
			}
		})
	}
}

// TestRepeatedWarningsSummarised: 1000 module lines that cannot be stored
// (a Linux microdump refuses overlaps) give five warnings and a count.
func TestRepeatedWarningsSummarised(t *testing.T) {
	const pre = "I/google-breakpad(1): "
	var b strings.Builder
	b.WriteString(pre + beginMarker + "\n" + pre + "O L arm64 01 aarch64 v\n")
	for i := range 1001 {
		fmt.Fprintf(&b, "%sM 1000 0 1000 ID m%d\n", pre, i)
	}
	b.WriteString(pre + endMarker + "\n")
	d, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 6 || !strings.HasPrefix(d.Warnings[0], "line 4: module m1 ") ||
		d.Warnings[5] != "995 more modules could not be stored, the first: line 9: module m6 could not be stored" {
		t.Errorf("warnings:\n%s", strings.Join(d.Warnings, "\n"))
	}
}
