package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/coreconv"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
)

// unpackCore writes the zstd-compressed core testdata/cores/<name>.core.zst
// to a temporary file and returns its path.
func unpackCore(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".core")
	if err := os.WriteFile(path, corpus.TestdataCore(t, name), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The walk of a kernel- or gdb-written core equals the walk of the minidump
// cmd/core2md made of it (testdata/dumps, written with -stack-limit 65536;
// we keep core2md's default of 256 KiB, which for these small programs
// changes nothing), in every output format.
func TestCoreWalkEqualsConvertedDump(t *testing.T) {
	symbols := corpus.Testdata(t, "symbols")
	for _, name := range []string{"amd64-fp", "amd64-threads", "x86-libc", "x86-threads"} {
		t.Run(name, func(t *testing.T) {
			core := unpackCore(t, name)
			dump := corpus.Testdata(t, "dumps", name+".dmp")
			for _, mode := range [][]string{nil, {"-m"}, {"-s"}, {"--json"}, {"-b"}} {
				want, wantErr, wantStatus := runCLI(append(append([]string{}, mode...), dump, symbols)...)
				got, gotErr, status := runCLI(append(append([]string{}, mode...), core, symbols)...)
				if status != exitOK || wantStatus != exitOK || gotErr != wantErr {
					t.Errorf("%q: status %d (dump %d), stderr %q (dump %q)", mode, status, wantStatus, gotErr, wantErr)
				}
				if !strings.Contains(want, "crashdemo") {
					t.Fatalf("%q: the dump's walk names no module:\n%s", mode, want)
				}
				// The crash analysis needs the code at the crash address:
				// core2md took it from the program's file, which some
				// cores (amd64-fp, x86-threads) do not hold.
				got, want = withoutCrashAnalysis(got), withoutCrashAnalysis(want)
				if got != want {
					t.Errorf("%q: the core's walk differs from the dump's:\n%s\nwant:\n%s", mode, got, want)
				}
			}
		})
	}
}

// qemu-user cores hold no program text, so without core2md's --module the
// program is a module without an identifier (and without symbols); the
// registers of the crashing frame still equal those of the converted dump.
func TestQemuCoreWalks(t *testing.T) {
	for _, name := range []string{"arm-fp", "arm64-fp", "arm64-threads"} {
		t.Run(name, func(t *testing.T) {
			core := unpackCore(t, name)
			got, gotErr, status := runCLI(core)
			want, _, _ := runCLI(corpus.Testdata(t, "dumps", name+".dmp"))
			if status != exitOK {
				t.Fatalf("status %d: %s", status, gotErr)
			}
			// No program text in the core: no instruction to analyze.
			if g, w := crashedFrame0(got), crashedFrame0(dropCrashAnalysis(want)); g == "" || g != w {
				t.Errorf("frame 0 of the crashed thread:\n%s\nwant:\n%s", g, w)
			}
		})
	}
}

// crashedFrame0 returns the lines of the crashed thread's first frame, from
// the report's header on.
func crashedFrame0(report string) string {
	i := strings.Index(report, "(crashed)\n")
	if i < 0 {
		return ""
	}
	rest := report[:i]
	frame := report[i:]
	if j := strings.Index(frame, "\n 1  "); j >= 0 {
		frame = frame[:j]
	}
	return rest + frame
}

func TestCoreInputErrors(t *testing.T) {
	dir := t.TempDir()
	core, err := os.ReadFile(unpackCore(t, "amd64-fp"))
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.core")
	if err := os.WriteFile(truncated, core[:200], 0o644); err != nil {
		t.Fatal(err)
	}
	riscv := filepath.Join(dir, "riscv.core")
	other := append([]byte(nil), core...)
	other[18], other[19] = 243, 0 // e_machine = EM_RISCV
	if err := os.WriteFile(riscv, other, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{truncated, "core file"},
		{riscv, "unsupported core architecture"},
	} {
		out, errOut, status := runCLI(tc.path)
		if status != exitDump || out != "" || !strings.Contains(errOut, tc.path) || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: status %d, stdout %q, stderr %q; want status 1 and %q", tc.path, status, out, errOut, tc.want)
		}
		out, _, status = runCLI("--json", tc.path)
		if status != exitDump || !strings.Contains(out, `"status"`) {
			t.Errorf("--json %s: status %d, stdout %q; want a status document", tc.path, status, out)
		}
	}
	// An ELF file that is not a core is not converted: it is no minidump either.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if isELFCore(exe) {
		t.Errorf("%s (an executable) taken for a core", exe)
	}
	if _, errOut, status := runCLI(exe); status != exitDump || strings.Contains(errOut, "core") {
		t.Errorf("executable: status %d, stderr %q", status, errOut)
	}
	if !isELFCore(truncated) || isELFCore(filepath.Join(dir, "missing")) {
		t.Error("isELFCore misjudges the truncated core or a missing file")
	}
}

// core.go converts with core2md's conversion (internal/coreconv): with the
// options the testdata dumps were written with (-stack-limit 65536) and the
// command's own defaults otherwise (module files read from disk), its
// minidump is byte for byte core2md's. qemu cores are left out: their dumps
// were converted with --module naming the program, which the stack walker
// does not offer.
func TestCoreConversionIsCore2md(t *testing.T) {
	for _, name := range []string{"amd64-fp", "amd64-threads", "x86-libc", "x86-threads"} {
		t.Run(name, func(t *testing.T) {
			opt := coreconv.DefaultOptions()
			opt.StackLimit = 64 << 10
			got, err := convertCoreFile(unpackCore(t, name), opt)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(corpus.Testdata(t, "dumps", name+".dmp"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("converted dump (%d bytes) differs from core2md's testdata/dumps/%s.dmp (%d bytes)", len(got), name, len(want))
			}
		})
	}
}
