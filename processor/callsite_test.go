package processor

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// TestCallSiteEvidence shows on one of Breakpad's own test dumps why our
// scans differ from Breakpad's where the dump holds code
// (callSiteDivergence). linux_null_dereference.dmp holds 256 bytes of the
// program around the crash address. objdump's disassembly of that region
// (objdump -D -b binary -m i386:x86-64 --adjust-vma=0x401ea6 on its bytes):
//
//	401ed8:	e9 73 ff ff ff	jmp    0x401e50
//	401edd:	55		push   %rbp        <- Breakpad's frame 3
//	...
//	401f2c:	5d		pop    %rbp
//	401f2d:	c3		ret
//	401f2e:	55		push   %rbp        <- Breakpad's frame 6
//
// Both words are function starts after a jmp and a ret: function pointers
// on the stack, not return addresses, since no call ends there. Breakpad
// takes them (its frames 3 and 6, "driver + 0x1edd", "driver + 0x1f2e");
// with Options.BreakpadScan we do too; by default we skip them.
func TestCallSiteEvidence(t *testing.T) {
	bp := corpus.Shared(t, "corpus", "breakpad")
	d, err := minidump.Open(filepath.Join(bp, "dumps", "linux_null_dereference.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	mem, err := d.Memory()
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []struct {
		at    uint64
		bytes []byte
	}{{0x401ed8, []byte{0xe9, 0x73, 0xff, 0xff, 0xff}}, {0x401f2c, []byte{0x5d, 0xc3}}} {
		got := make([]byte, len(ev.bytes))
		if err := mem.ReadMemory(ev.at, got); err != nil || !bytes.Equal(got, ev.bytes) {
			t.Fatalf("dump bytes at %#x: % x (%v), objdump read % x", ev.at, got, err, ev.bytes)
		}
	}
	sup := symfile.NewDirSupplier(filepath.Join(bp, "symbols"))
	rips := func(opts Options) []uint64 {
		st, err := Process(d, sup, opts)
		if err != nil {
			t.Fatal(err)
		}
		th, _ := st.BreakpadThreads()
		var out []uint64
		for _, f := range th[0].Frames {
			ip, _ := f.Context.IP()
			out = append(out, ip)
		}
		return out
	}
	has := func(list []uint64, v uint64) bool {
		for _, x := range list {
			if x == v {
				return true
			}
		}
		return false
	}
	scan, ours := rips(Options{BreakpadScan: true}), rips(Options{})
	for _, fp := range []uint64{0x401edd, 0x401f2e} {
		if !has(scan, fp) {
			t.Errorf("with BreakpadScan: %#x missing from %x (Breakpad prints it)", fp, scan)
		}
		if has(ours, fp) {
			t.Errorf("default walk %x takes the function pointer %#x", ours, fp)
		}
	}
	if len(ours) < 3 || len(ours) > len(scan) {
		t.Errorf("default walk %x, Breakpad's scan %x", ours, scan)
	}
}
