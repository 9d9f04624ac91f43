package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/coreconv"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// unpackProgram writes the stripped crash program of arch to a temporary
// directory and returns its path.
func unpackProgram(t *testing.T, arch string) string {
	t.Helper()
	return unpackNamedProgram(t, arch, "crashdemo")
}

// unpackNamedProgram is unpackProgram for the program name of an extra
// case (cores/<arch>-<name>.zst).
func unpackNamedProgram(t *testing.T, arch, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, corpus.ReadZstd(t, filepath.Join(testdataDir, "cores", arch+"-"+name+".zst")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readCore returns the decompressed core <name>.core.zst of the corpus under
// test (testdataDir, which TESTDATA_DIR may redirect).
func readCore(t testing.TB, name string) []byte {
	t.Helper()
	return corpus.ReadZstd(t, filepath.Join(testdataDir, "cores", name+".core.zst"))
}

var defaultOptions = coreconv.Options{StackLimit: 64 << 10, IPWindow: 256, CodeWindow: 128, NoDisk: true}

// convertCore converts the ELF core raw with opt, failing t on any error.
func convertCore(t *testing.T, raw []byte, opt coreconv.Options) []byte {
	t.Helper()
	core, err := coredump.NewFile(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	data, err := coreconv.Convert(core, opt)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// openDump parses the minidump data, failing t on any error.
func openDump(t *testing.T, data []byte) *minidump.File {
	t.Helper()
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// dumpModules returns the module list of the minidump data, failing t on
// any error.
func dumpModules(t *testing.T, data []byte) []minidump.Module {
	t.Helper()
	ms, err := openDump(t, data).Modules()
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestConvertCores converts the cores kept in testdata/cores (kernel, gdb
// and qemu-user written, all four architectures) without reading anything
// from disk, and checks the result against gdb's reading of the same core
// and against the dump the generator converted, with the program at hand.
func TestConvertCores(t *testing.T) {
	cases := map[string]corpusCase{}
	for _, c := range readCases(t) {
		cases[c.Name] = c
	}
	names, _ := filepath.Glob(filepath.Join(testdataDir, "cores", "*.core.zst"))
	producers := map[string]bool{}
	arches := map[string]bool{}
	extra, _ := os.ReadFile(filepath.Join(testdataDir, "cores", "extra.txt"))
	for _, path := range names {
		name := strings.TrimSuffix(filepath.Base(path), ".core.zst")
		if strings.Contains(string(extra), "\n"+name+" ") {
			continue // TestConvertDynamicCore
		}
		c, ok := cases[name]
		if !ok {
			t.Errorf("core %s is not in cases.txt", name)
			continue
		}
		producers[c.Producer] = true
		arches[c.Arch] = true
		t.Run(name, func(t *testing.T) {
			opt := defaultOptions
			if c.Producer == "qemu" {
				// qemu-user cores hold no program text: name the program.
				opt.Modules = []coreconv.Module{{Path: unpackProgram(t, c.Arch)}}
			}
			data := convertCore(t, readCore(t, name), opt)
			checkAgainstGDB(t, c, data)
			compareWithCorpusDump(t, name, data)
		})
	}
	for _, p := range []string{"kernel", "gdb", "qemu"} {
		if !producers[p] {
			t.Errorf("no %s-written core in testdata/cores", p)
		}
	}
	for _, a := range []string{"amd64", "x86", "arm", "arm64"} {
		if !arches[a] {
			t.Errorf("no %s core in testdata/cores", a)
		}
	}
}

// compareWithCorpusDump checks that a conversion made from the core alone
// finds the same modules (base, size, identifiers) as the generator's, which
// named the program on the command line for qemu cores.
func compareWithCorpusDump(t *testing.T, name string, data []byte) {
	t.Helper()
	want, err := os.ReadFile(filepath.Join(testdataDir, "dumps", name+".dmp"))
	if err != nil {
		t.Fatal(err)
	}
	modules := func(b []byte) map[uint64]minidump.Module {
		ms := dumpModules(t, b)
		out := map[uint64]minidump.Module{}
		for _, m := range ms {
			out[m.Base] = m
		}
		return out
	}
	got, exp := modules(data), modules(want)
	for base, e := range exp {
		g, ok := got[base]
		switch {
		case !ok:
			t.Errorf("module %s at %#x missing", e.Name, base)
		case g.Size != e.Size || g.DebugID != e.DebugID || g.CodeID != e.CodeID:
			t.Errorf("module at %#x: got %s size %#x id %s, want %s size %#x id %s", base, g.Name, g.Size, g.DebugID, e.Name, e.Size, e.DebugID)
		case filepath.Base(g.Name) != filepath.Base(e.Name):
			t.Errorf("module at %#x named %q, want %q", base, g.Name, e.Name)
		}
	}
	if len(got) != len(exp) {
		t.Errorf("%d modules, want %d", len(got), len(exp))
	}
}

func TestRejectsOtherFiles(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	core := readCore(t, "amd64-fp")
	riscv := append([]byte(nil), core...)
	riscv[18], riscv[19] = 243, 0 // e_machine = EM_RISCV
	mismatched := append([]byte(nil), core...)
	mismatched[18] = 40 // EM_ARM in a 64-bit core
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"text", []byte("not an ELF file at all\n"), coredump.ErrNotCore},
		{"empty", nil, coredump.ErrNotCore},
		{"executable", readFile(t, exe), coredump.ErrNotCore},
		{"riscv core", riscv, coredump.ErrUnsupportedMachine},
		{"64-bit ARM core", mismatched, coredump.ErrUnsupportedMachine},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := coredump.NewFile(bytes.NewReader(tc.data), int64(len(tc.data)))
			if !errors.Is(err, tc.want) {
				t.Errorf("NewFile error %v, want %v", err, tc.want)
			}
		})
	}
	// The command reports it and exits 1.
	path := filepath.Join(t.TempDir(), "riscv.core")
	if err := os.WriteFile(path, riscv, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if code := run([]string{path, filepath.Join(t.TempDir(), "out.dmp")}, &stderr); code != 1 || !strings.Contains(stderr.String(), "unsupported core architecture") {
		t.Errorf("run = %d, stderr %q", code, stderr.String())
	}
	if code := run([]string{path}, &stderr); code != 2 {
		t.Errorf("run with one argument = %d, want 2", code)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestQemuCoreWithoutProgram: without --module, a qemu-user core still gets
// a module for its program, at the executable segment holding AT_ENTRY, but
// no identifier, since the core holds none of the program's bytes.
func TestQemuCoreWithoutProgram(t *testing.T) {
	ms := dumpModules(t, convertCore(t, readCore(t, "arm64-fp"), defaultOptions))
	// readelf -l of the generator's arm64 crashdemo: the text PT_LOAD is at 0x400000.
	if len(ms) != 1 || ms[0].Base != 0x400000 || ms[0].CVRecord != nil || !strings.HasSuffix(ms[0].Name, "crashdemo") {
		t.Errorf("modules = %+v; want one crashdemo at 0x400000 without a CodeView record", ms)
	}
}

// TestConvertDynamicCore converts the cores of cores/extra.txt (a PIE linked
// against the system's shared libraries) from the core alone, without
// reading any file: the modules come from NT_FILE and their build ids from
// the ELF headers the kernel dumps. Besides the checks against gdb's frames,
// every shared library gdb lists must be a module covering gdb's text range,
// with a build id.
func TestConvertDynamicCore(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testdataDir, "cores", "extra.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 5 || strings.HasPrefix(f[0], "#") {
			continue
		}
		threads, _ := strconv.Atoi(f[4])
		c := corpusCase{f[0], f[1], f[2], f[3], threads}
		n++
		t.Run(c.Name, func(t *testing.T) {
			dump := convertCore(t, readCore(t, c.Name), defaultOptions)
			checkAgainstGDB(t, c, dump)
			ms := dumpModules(t, dump)
			libs := readGDBLibraries(t, filepath.Join(testdataDir, "oracle", c.Name+".frames.txt"))
			if len(libs) == 0 {
				t.Fatal("gdb lists no shared libraries")
			}
			for _, lib := range libs {
				found := false
				for _, m := range ms {
					if m.Base <= lib.From && lib.To <= m.End() {
						found = true
						// gdb names a library by its soname path (libstdc++.so.6),
						// the core by the mapped file (libstdc++.so.6.0.30).
						if !strings.HasPrefix(filepath.Base(m.Name), filepath.Base(lib.Path)) {
							t.Errorf("gdb's %s [%#x,%#x) is in module %s", lib.Path, lib.From, lib.To, m.Name)
						}
						if len(m.CodeID) < 32 {
							t.Errorf("module %s: code id %q, want its build id", m.Name, m.CodeID)
						}
					}
				}
				if !found {
					t.Errorf("gdb's %s [%#x,%#x) is in no module", lib.Path, lib.From, lib.To)
				}
			}
		})
	}
	if n == 0 {
		t.Error("cores/extra.txt lists no core")
	}
}

// TestRunWritesDump runs the command on a kernel core and reads the output
// back with Breakpad's minidump_stackwalk when it is installed.
func TestRunWritesDump(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "core"), filepath.Join(dir, "out.dmp")
	if err := os.WriteFile(in, readCore(t, "amd64-fp"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if code := run([]string{"--no-disk", "--stack-limit", "4096", in, out}, &stderr); code != 0 {
		t.Fatalf("run = %d: %s", code, stderr.String())
	}
	ths, err := openDump(t, readFile(t, out)).Threads()
	if err != nil || len(ths) != 1 || ths[0].Stack.Size == 0 || ths[0].Stack.Size > 4096 {
		t.Fatalf("threads %+v, %v; want one with at most 4096 stack bytes", ths, err)
	}
	bin := oracle.Require(t, oracle.Stackwalk)
	got, err := exec.Command(bin, "-m", out, filepath.Join(testdataDir, "symbols")).Output()
	if err != nil {
		t.Fatal(err)
	}
	// gdb's frame 0 of this core (oracle/amd64-fp.frames.txt) is fp_leaf.
	if !strings.Contains(string(got), "Crash|SIGSEGV /SEGV_MAPERR|0x0|0") || !strings.Contains(string(got), "0|0|crashdemo|fp_leaf|") {
		t.Errorf("Breakpad's walk of the dump:\n%s", got)
	}
}
