package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
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
			if g, w := crashedFrame0(got), crashedFrame0(want); g == "" || g != w {
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

// core.go converts with core2md's conversion (internal/coreconv), with the
// options the testdata dumps were written with (-stack-limit 65536) and,
// by default, no module file read from disk. A core written by gdb holds
// its programs' text, so its conversion is core2md's dump byte for byte; a
// kernel-written core holds none (the default coredump_filter), and core2md
// read the code around instruction pointers and return addresses from the
// program file, which testdata does not keep for amd64 and x86: there every
// stream but the memory list is core2md's, and the memory is core2md's less
// regions inside the program. qemu cores are left out: their dumps were
// converted with --module naming the program, which the stack walker does
// not offer.
func TestCoreConversionIsCore2md(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hasText bool // written by gdb (testdata/cases.txt)
	}{{"amd64-fp", false}, {"amd64-threads", true}, {"x86-libc", true}, {"x86-threads", false}} {
		t.Run(tc.name, func(t *testing.T) {
			opt := coreOptions("")
			opt.StackLimit = 64 << 10
			got, err := convertCoreFile(unpackCore(t, tc.name), opt)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(corpus.Testdata(t, "dumps", tc.name+".dmp"))
			if err != nil {
				t.Fatal(err)
			}
			if tc.hasText {
				if !bytes.Equal(got, want) {
					t.Errorf("converted dump (%d bytes) differs from core2md's testdata/dumps/%s.dmp (%d bytes)", len(got), tc.name, len(want))
				}
				return
			}
			compareLessProgramCode(t, got, want)
		})
	}
}

// compareLessProgramCode checks that got has want's streams, each with the
// same bytes but the memory list, and want's memory less some regions
// inside the program (the first module).
func compareLessProgramCode(t *testing.T, gotData, wantData []byte) {
	t.Helper()
	got, want := openDumpBytes(t, gotData), openDumpBytes(t, wantData)
	gs, ws := got.Streams(), want.Streams()
	if len(gs) != len(ws) {
		t.Fatalf("%d streams, core2md's dump has %d", len(gs), len(ws))
	}
	for i, w := range ws {
		g := gs[i]
		if g.Type != w.Type {
			t.Fatalf("stream %d is %s, core2md's is %s", i, g.Name, w.Name)
		}
		if w.Type != minidump.StreamMemoryList && !bytes.Equal(streamBytes(gotData, g), streamBytes(wantData, w)) {
			t.Errorf("%s differs from core2md's", w.Name)
		}
	}
	modules, err := want.Modules()
	if err != nil || len(modules) == 0 {
		t.Fatalf("core2md's dump: modules %v, %v", modules, err)
	}
	program := modules[0]
	gm, wm := dumpMemory(t, got), dumpMemory(t, want)
	for _, r := range gm.Regions() {
		b, _ := r.Bytes()
		w := make([]byte, len(b))
		if err := wm.ReadMemory(r.Base, w); err != nil || !bytes.Equal(b, w) {
			t.Errorf("region [%#x,%#x) is not core2md's (%v)", r.Base, r.End(), err)
		}
	}
	missing := 0
	for _, r := range wm.Regions() {
		if _, ok := gm.Region(r.Base); ok {
			continue
		}
		missing++
		if r.Base < program.Base || r.End() > program.End() {
			t.Errorf("core2md's region [%#x,%#x) is missing and not in the program %s", r.Base, r.End(), program.Name)
		}
	}
	if missing == 0 {
		t.Errorf("no region of the program is missing: the core holds the program's text after all?")
	}
}

func openDumpBytes(t *testing.T, data []byte) *minidump.File {
	t.Helper()
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func dumpMemory(t *testing.T, f *minidump.File) *minidump.MemoryList {
	t.Helper()
	m, err := f.Memory()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// streamBytes returns the bytes of stream s of the dump data (which
// minidump.NewFile has checked lie inside it).
func streamBytes(data []byte, s minidump.StreamInfo) []byte {
	return data[s.Off : s.Off+int64(s.Size)]
}

// `minidump-stackwalk core2md` is core2md (internal/core2mdcli): a
// gdb-written core converts into the dump the generator's core2md wrote,
// byte for byte; its usage errors exit 2 and a bad core 1, as the main
// command's.
func TestCore2mdSubcommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.dmp")
	core := unpackCore(t, "amd64-threads")
	if _, errOut, status := runCLI("core2md", "--stack-limit", "65536", core, out); status != exitOK {
		t.Fatalf("status %d: %s", status, errOut)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(corpus.Testdata(t, "dumps", "amd64-threads.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("core2md subcommand: %d bytes, differ from testdata/dumps/amd64-threads.dmp (%d bytes)", len(got), len(want))
	}
	for _, tc := range []struct {
		args   []string
		status int
	}{
		{[]string{"core2md", core}, exitUsage},
		{[]string{"core2md", "--no-such-flag", core, out}, exitUsage},
		{[]string{"core2md", "--module", "prog@0xzz", core, out}, exitUsage},
		{[]string{"core2md", corpus.Testdata(t, "dumps", "amd64-fp.dmp"), out}, exitDump},
	} {
		if _, errOut, status := runCLI(tc.args...); status != tc.status || errOut == "" {
			t.Errorf("%q: status %d, stderr %q; want %d and a message", tc.args, status, errOut, tc.status)
		}
	}
}
