package main

// A deliberate difference from Breakpad and rust-minidump: when a dump holds
// the code before a scanned stack word (Linux dumps hold 256 bytes around
// the crash address), a word no call instruction precedes is no return
// address and is skipped. Breakpad and rust-minidump print such words as
// frames (function pointers: the Linux dumps' `driver+0x1edd` follows a
// jmp, linux-mini's `crash+0x1dc0` is _start after padding). processor's
// TestConformanceFrames holds the walk with Options.BreakpadScan to
// Breakpad's frames, TestCallSiteEvidence shows one case against objdump,
// and TestConformanceBreakpadCompat holds --breakpad-compat to Breakpad's
// whole output.

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// callSiteChecked reports whether the call-site check changes the walk of
// the dump named in args (a command line: the dump, then symbol paths, or
// --symbols-path=DIR): the default walk differs from the walk with
// processor.Options.BreakpadScan, the only option that differs.
func callSiteChecked(t *testing.T, args []string) bool {
	t.Helper()
	dump := ""
	var roots []string
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "--symbols-path="):
			roots = append(roots, strings.TrimPrefix(a, "--symbols-path="))
		case strings.HasPrefix(a, "-"):
		case dump == "" && strings.HasSuffix(a, ".dmp"):
			dump = a
		case dump != "" && !strings.HasSuffix(a, ".json"):
			roots = append(roots, filepath.Clean(a))
		}
	}
	if dump == "" {
		return false
	}
	d, err := minidump.Open(dump)
	if err != nil {
		return false
	}
	defer d.Close()
	var sup symfile.Supplier
	if len(roots) > 0 {
		sup = symfile.NewDirSupplier(roots...)
	}
	walk := func(opts processor.Options) []*processor.Thread {
		st, err := processor.Process(d, sup, opts)
		if err != nil {
			t.Fatalf("%s: %v", dump, err)
		}
		th, _ := st.BreakpadThreads()
		return th
	}
	ours, scan := walk(processor.Options{}), walk(processor.Options{BreakpadScan: true})
	if len(ours) != len(scan) {
		return true
	}
	for i := range ours {
		a, b := ours[i].Frames, scan[i].Frames
		if len(a) != len(b) {
			return true
		}
		for j := range a {
			if a[j].Instruction != b[j].Instruction || a[j].Trust != b[j].Trust {
				return true
			}
		}
	}
	return false
}
