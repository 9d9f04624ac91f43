package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
)

// TestDebuginfoPathFindsPEImages: --debuginfo-path finds a Windows
// module's image in a Microsoft symbol store's name/CODEID/name layout
// (wincrash.exe) and flat (Wine's DLLs), and the walk of the qsort case
// goes through msvcrt.dll's .pdata to the thread's start, naming frames
// by exports (testdata/windows/oracle/qsort.winedbg-dump.txt, winedbg's
// backtrace: qsort_s+0x3f, qsort+0x15, BaseThreadInitThunk+0x9,
// RtlUserThreadStart+0x88).
func TestDebuginfoPathFindsPEImages(t *testing.T) {
	root := t.TempDir()
	exe, err := os.ReadFile("../../testdata/windows/x64/wincrash.exe")
	if err != nil {
		t.Fatal(err)
	}
	img, err := pe.Open("../../testdata/windows/x64/wincrash.exe")
	if err != nil {
		t.Fatal(err)
	}
	img.Close()
	store := filepath.Join(root, "wincrash.exe", img.CodeID())
	write := func(path string, b []byte) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(store, "wincrash.exe"), exe)
	for _, d := range []string{"ntdll", "kernel32", "kernelbase", "msvcrt"} {
		write(filepath.Join(root, d+".dll"), corpus.ReadZstd(t, "../../testdata/windows/x64/wine/"+d+".dll.zst"))
	}
	dump := filepath.Join(root, "qsort.dmp")
	write(dump, corpus.ReadZstd(t, "../../testdata/windows/x64/qsort.dmp.zst"))
	out, errOut, status := runCLI("-c", "--debuginfo-path", root, dump)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	want := []string{" 3  msvcrt.dll!qsort_s + 0x3f", " 4  msvcrt.dll!qsort + 0x15",
		"10  kernel32.dll!BaseThreadInitThunk + 0x9", "11  ntdll.dll!RtlUserThreadStart + 0x88"}
	for _, w := range want {
		if !strings.Contains(out, w+"\n") {
			t.Errorf("no %q in:\n%s", w, out)
		}
	}
	if strings.Contains(out, "\n12  ") || strings.Contains(out, "stack scanning") {
		t.Errorf("frames past RtlUserThreadStart or scanned:\n%s", out)
	}
}
