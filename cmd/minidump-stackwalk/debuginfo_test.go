package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
)

// --debuginfo-path with the stripped program alone walks arm-abort
// through glibc's exidx-only code and abort, whose object has no unwind
// entry, to gdb's nine frames: the flag hands the walkers the program's
// unwind tables, prologues and code (processor.Options.Native), not only
// the .sym made from it.
func TestDebuginfoPathWalksToGDBFrames(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "arm-abort.dmp")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crashdemo"), corpus.ReadZstd(t, corpus.Testdata(t, "cores", "arm-crashdemo.zst")), 0o644); err != nil {
		t.Fatal(err)
	}
	gdb := oracle.ReadGDBFrames(t, corpus.Testdata(t, "oracle", "arm-abort.frames.txt"))
	out, errOut, status := runCLI("-m", "--debuginfo-path", dir, dump)
	if status != exitOK {
		t.Fatalf("status %d: %s", status, errOut)
	}
	var offsets []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Split(line, "|"); len(f) == 7 && f[0] == "0" {
			offsets = append(offsets, f[6])
		}
	}
	want := gdb[0].PCs()
	if len(offsets) != len(want) {
		t.Fatalf("%d frames %v, gdb %d %x", len(offsets), offsets, len(want), want)
	}
	// Frame 0 is the pc; a caller's offset is its return address − 2
	// with the Thumb bit (Breakpad's ARM lookup address), from base 0x10000.
	for i, pc := range want {
		wantOff := pc - 0x10000
		if i > 0 {
			wantOff = pc - 0x10000 - 1
		}
		if offsets[i] != "0x"+strings.TrimLeft(strings.ToLower(hex64(wantOff)), "0") {
			t.Errorf("frame %d: offset %s, gdb's pc %#x", i, offsets[i], pc)
		}
	}
}

func hex64(v uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[:])
}
