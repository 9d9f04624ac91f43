package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
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
	// An ELF file that is not a core is not converted: it is no minidump
	// either, and the message says what it looks like.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, errOut, status := runCLI(exe); status != exitDump || !strings.Contains(errOut, "an ELF file that is not a core") {
		t.Errorf("executable: status %d, stderr %q", status, errOut)
	}
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

// The input may come compressed (gzip, zstd, xz: told by content, not by
// name) or from standard input ("-", or a pipe named by path): the walk is
// the plain file's. What is no dump says what it looks like.
func TestInputForms(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	symbols := corpus.Testdata(t, "symbols")
	raw, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := runCLI(dump, symbols)
	dir := t.TempDir()
	zst := filepath.Join(dir, "crash.bin")
	compressed, err := os.ReadFile(corpus.Testdata(t, "cores", "amd64-fp.core.zst"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(zst, compressed, 0o644); err != nil {
		t.Fatal(err)
	}
	// The core, still zstd-compressed as testdata keeps it, walks as the core.
	core := unpackCore(t, "amd64-fp")
	wantCore, _, _ := runCLI(core, symbols)
	if got, errOut, status := runCLI(zst, symbols); status != exitOK || got != wantCore {
		t.Errorf("zstd-compressed core: status %d, stderr %q, output differs: %v", status, errOut, got != wantCore)
	}
	var stdout, stderr bytes.Buffer
	if status := runWithStdin([]string{"-", symbols}, bytes.NewReader(raw), &stdout, &stderr); status != exitOK || stdout.String() != want {
		t.Errorf("stdin: status %d, stderr %q, output differs: %v", status, stderr.String(), stdout.String() != want)
	}
	// The dump compressed in each format, from a file and from standard
	// input (decompressed into a temporary file), walks byte for byte as
	// the plain one.
	for name, packed := range compressedForms(t, raw) {
		path := filepath.Join(dir, "crash-"+name)
		if err := os.WriteFile(path, packed, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, errOut, status := runCLI(path, symbols); status != exitOK || got != want {
			t.Errorf("%s: status %d, stderr %q, output differs: %v", name, status, errOut, got != want)
		}
		stdout.Reset()
		stderr.Reset()
		if status := runWithStdin([]string{"-", symbols}, bytes.NewReader(packed), &stdout, &stderr); status != exitOK || stdout.String() != want {
			t.Errorf("%s on stdin: status %d, stderr %q, output differs: %v", name, status, stderr.String(), stdout.String() != want)
		}
	}
	text := filepath.Join(dir, "notes.dmp")
	if err := os.WriteFile(text, []byte("the crash happened at 10:42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, status := runCLI(text); status != exitDump || !strings.Contains(errOut, "looks like text") || !strings.Contains(errOut, text) {
		t.Errorf("text file: status %d, stderr %q", status, errOut)
	}
}

// compressedForms compresses data with gzip, zstd and xz.
func compressedForms(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	forms := map[string][]byte{}
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	if _, err := gw.Write(data); err != nil || gw.Close() != nil {
		t.Fatal("gzip", err)
	}
	forms["gzip"] = gz.Bytes()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	forms["zstd"] = enc.EncodeAll(data, nil)
	enc.Close()
	var xzb bytes.Buffer
	xw, err := xz.NewWriter(&xzb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := xw.Write(data); err != nil || xw.Close() != nil {
		t.Fatal("xz", err)
	}
	forms["xz"] = xzb.Bytes()
	return forms
}

// A dump that fails to open is named once in the message, whether the error
// comes from the decompressor (which names its input), the file system, or
// the minidump reader (which does not).
func TestOpenFailureNamesThePathOnce(t *testing.T) {
	data, err := os.ReadFile(corpus.Testdata(t, "dumps", "amd64-threads.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := map[string][]byte{"not-a-dump.dmp": []byte("MDMP\x93\xa7")}
	for name, packed := range compressedForms(t, data[:4096]) {
		cases["cut-"+name+".dmp"] = packed[:len(packed)/2]
	}
	for name, content := range cases {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, status := runCLI(path)
		if status != exitDump || strings.Count(errOut, path) != 1 || !strings.HasPrefix(errOut, "minidump-stackwalk: "+path+": ") {
			t.Errorf("%s: status %d, stderr %q: want the path named once, after the program's name", name, status, errOut)
		}
	}
	missing := filepath.Join(dir, "missing.dmp")
	if _, errOut, _ := runCLI(missing); strings.Count(errOut, missing) != 1 {
		t.Errorf("missing file: stderr %q names the path %d times, want once", errOut, strings.Count(errOut, missing))
	}
}
