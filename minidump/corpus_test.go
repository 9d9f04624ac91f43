package minidump

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// corpusCase is one dump with Breakpad's outputs for it.
type corpusCase struct {
	name     string
	dump     string
	machine  string // expected/<name>.machine.txt, "" if none
	stackwlk string // expected/<name>.stackwalk.txt, "" if none
}

// corpusDirs are the shared directories holding dumps/ and expected/.
var corpusDirs = [][]string{
	{"corpus", "breakpad"},
	{"corpus", "breakpad-generated"},
	{"corpus", "breakpad-generated", "stress"},
	{"perf"},
}

func corpusCases(t *testing.T) []corpusCase {
	t.Helper()
	corpus.Shared(t, "corpus")
	var cases []corpusCase
	for _, d := range corpusDirs {
		root := corpus.Shared(t, d...)
		dumps, _ := filepath.Glob(filepath.Join(root, "dumps", "*.dmp"))
		for _, dump := range dumps {
			name := strings.TrimSuffix(filepath.Base(dump), ".dmp")
			c := corpusCase{name: filepath.Join(filepath.Join(d...), name), dump: dump}
			if p := filepath.Join(root, "expected", name+".machine.txt"); exists(p) {
				c.machine = p
			}
			if p := filepath.Join(root, "expected", name+".stackwalk.txt"); exists(p) {
				c.stackwlk = p
			}
			cases = append(cases, c)
		}
	}
	// rust-minidump's dumps have no Breakpad outputs in the corpus; when the
	// reference binary is installed, run it (no symbols) to get them. (Its
	// version predates the "Crash parameters:" block of the corpus's expected
	// files.)
	if oracleStackwalk, ok := oracle.Lookup(oracle.Stackwalk); ok {
		rust := corpus.Shared(t, "corpus", "rust-minidump", "testdata")
		outDir := t.TempDir()
		for _, name := range []string{"test", "linux-mini", "pipeline-inlines-macos-segv", "simple-crashpad", "invalid-parameter"} {
			dump := filepath.Join(rust, name+".dmp")
			c := corpusCase{name: "rust-minidump/" + name, dump: dump,
				machine: filepath.Join(outDir, name+".machine.txt"), stackwlk: filepath.Join(outDir, name+".stackwalk.txt")}
			for _, run := range [][]string{{"-m", dump}, {dump}} {
				out, err := exec.Command(oracleStackwalk, run...).Output()
				if err != nil {
					t.Fatalf("%s %v: %v", oracleStackwalk, run, err)
				}
				dst := c.stackwlk
				if run[0] == "-m" {
					dst = c.machine
				}
				if err := os.WriteFile(dst, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cases = append(cases, c)
		}
	} else {
		t.Logf("%s absent: rust-minidump dumps not compared with Breakpad", oracleStackwalk)
	}
	if len(cases) < 50 {
		t.Fatalf("found only %d corpus dumps", len(cases))
	}
	return cases
}

// allDumps lists every .dmp in the shared corpus, including rust-minidump's.
func allDumps(t testing.TB) []string {
	var out []string
	for _, d := range append(corpusDirs, []string{"corpus", "rust-minidump", "testdata"}) {
		p := filepath.Join(append([]string{sharedRoot(t)}, d...)...)
		if d[len(d)-1] != "testdata" {
			p = filepath.Join(p, "dumps")
		}
		m, _ := filepath.Glob(filepath.Join(p, "*.dmp"))
		out = append(out, m...)
	}
	return out
}

func sharedRoot(t testing.TB) string {
	root, err := corpus.RepoRoot()
	if err != nil {
		return ""
	}
	return filepath.Join(root, "..", "shared")
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func readLines(t *testing.T, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// The formatters below rebuild Breakpad's output lines from parsed values, so
// that the expected files prove the parsed data right. They follow
// stackwalk_common.cc's PrintProcessState[MachineReadable].

func stripSep(s string) string { return strings.ReplaceAll(s, "|", "_") }

type processed struct {
	si         *SystemInfo
	ex         *Exception
	threads    []Thread
	indexes    []int // processed thread -> index in threads
	requesting int
	roles      ThreadRoles
}

func process(t *testing.T, f *File) processed {
	var p processed
	var err error
	if p.si, err = f.SystemInfo(); err != nil {
		t.Errorf("SystemInfo: %v", err)
	}
	p.ex, _ = f.Exception()
	if p.threads, err = f.Threads(); err != nil {
		t.Errorf("Threads: %v", err)
	}
	p.roles = f.ThreadRoles()
	p.indexes, p.requesting = p.roles.ProcessedThreads(p.threads)
	return p
}

func machineHeader(t *testing.T, f *File, p processed) []string {
	si := p.si
	lines := []string{
		fmt.Sprintf("OS|%s|%s", stripSep(si.OS()), stripSep(si.OSVersion())),
		fmt.Sprintf("CPU|%s|%s|%d", stripSep(si.CPU()), stripSep(si.CPUInfo()), si.CPUCount()),
		"GPU|||",
	}
	crash := "Crash|"
	switch {
	case p.ex != nil:
		crash += fmt.Sprintf("%s|0x%x|", stripSep(CrashReason(si, p.ex)), CrashAddress(si, p.ex))
	case f.Assertion() != "":
		crash += stripSep(f.Assertion()) + "||"
	default:
		crash += "No crash||"
	}
	if p.requesting != -1 {
		crash += strconv.Itoa(p.requesting)
	}
	lines = append(lines, crash)
	mods, err := f.Modules()
	if err != nil {
		t.Errorf("Modules: %v", err)
	}
	ranges, err := BreakpadModuleRanges(mods, p.si.Platform)
	if err != nil {
		t.Errorf("BreakpadModuleRanges: %v", err)
	}
	if i := MainModule(mods); i >= 0 {
		main := mods[i].Base
		for _, r := range ranges {
			m := mods[r.Index]
			isMain := 0
			if m.Base == main {
				isMain = 1
			}
			lines = append(lines, fmt.Sprintf("Module|%s|%s|%s|%s|0x%08x|0x%08x|%d",
				stripSep(symfile.BaseName(m.Name)), stripSep(m.Version), stripSep(symfile.BaseName(m.DebugFile)),
				stripSep(m.DebugID), m.Base, m.Base+uint64(m.Size)-1, isMain))
		}
	}
	return lines
}

func humanHeader(f *File, p processed) []string {
	si := p.si
	lines := []string{
		"Operating system: " + si.OS(),
		"                  " + si.OSVersion(),
		"CPU: " + si.CPU(),
	}
	if ci := si.CPUInfo(); ci != "" {
		lines = append(lines, "     "+ci)
	}
	plural := "s"
	if si.CPUCount() == 1 {
		plural = ""
	}
	lines = append(lines, fmt.Sprintf("     %d CPU%s", si.CPUCount(), plural), "", "GPU: UNKNOWN", "")
	if p.ex != nil {
		lines = append(lines, "Crash reason:  "+CrashReason(si, p.ex), fmt.Sprintf("Crash address: 0x%x", CrashAddress(si, p.ex)))
		if len(p.ex.Parameters) > 0 {
			lines = append(lines, "Crash parameters:")
			for _, v := range p.ex.Parameters {
				lines = append(lines, fmt.Sprintf("    value: 0x%016x  description: ", v))
			}
		}
	} else {
		lines = append(lines, "No crash")
	}
	if a := f.Assertion(); a != "" {
		lines = append(lines, "Assertion: "+a)
	}
	if up, ok := f.ProcessUptime(); ok {
		lines = append(lines, fmt.Sprintf("Process uptime: %d seconds", up))
	} else {
		lines = append(lines, "Process uptime: not available")
	}
	return lines
}

var (
	threadLine = regexp.MustCompile(`^Thread (\d+)`)
	regPair    = regexp.MustCompile(`(\w+) = 0x([0-9a-f]+)`)
)

// frame0Registers parses the human output: processed thread index -> frame 0 registers.
func frame0Registers(lines []string) map[int]map[string]uint64 {
	out := map[int]map[string]uint64{}
	cur := -1
	inFrame0 := false
	for _, l := range lines {
		if m := threadLine.FindStringSubmatch(l); m != nil {
			cur, _ = strconv.Atoi(m[1])
			inFrame0 = false
			continue
		}
		if l == "Loaded modules:" {
			break
		}
		if cur >= 0 && strings.HasPrefix(l, " 0  ") {
			inFrame0 = true
			out[cur] = map[string]uint64{}
			continue
		}
		if inFrame0 {
			if strings.Contains(l, "Found by:") || !strings.HasPrefix(l, "    ") {
				inFrame0 = false
				continue
			}
			for _, m := range regPair.FindAllStringSubmatch(l, -1) {
				v, _ := strconv.ParseUint(m[2], 16, 64)
				out[cur][m[1]] = v
			}
		}
	}
	return out
}

func TestCorpusAgainstBreakpad(t *testing.T) {
	for _, c := range corpusCases(t) {
		t.Run(c.name, func(t *testing.T) {
			f, err := Open(c.dump)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p := process(t, f)
			if p.si == nil {
				t.Fatal("no system info")
			}
			if c.machine != "" {
				want := readLines(t, c.machine)
				got := machineHeader(t, f, p)
				var wantHdr []string
				for _, l := range want {
					if strings.HasPrefix(l, "OS|") || strings.HasPrefix(l, "CPU|") || strings.HasPrefix(l, "GPU|") ||
						strings.HasPrefix(l, "Crash|") || strings.HasPrefix(l, "Module|") {
						wantHdr = append(wantHdr, l)
					}
				}
				compareLines(t, "machine", wantHdr, got)
			}
			if c.stackwlk != "" {
				want := readLines(t, c.stackwlk)
				end := 0
				for i, l := range want {
					if strings.HasPrefix(l, "Process uptime:") {
						end = i + 1
						break
					}
				}
				got := humanHeader(f, p)
				if !slices.Contains(want[:end], "Crash parameters:") {
					got = slices.DeleteFunc(got, func(l string) bool {
						return l == "Crash parameters:" || strings.HasPrefix(l, "    value: ")
					})
				}
				compareLines(t, "human header", want[:end], got)

				// Thread count and frame-0 registers.
				nThreads := 0
				for _, l := range want {
					if threadLine.MatchString(l) {
						nThreads++
					}
				}
				if nThreads != len(p.indexes) {
					t.Errorf("processed threads: got %d, Breakpad printed %d", len(p.indexes), nThreads)
				}
				for ti, regs := range frame0Registers(want) {
					if ti >= len(p.indexes) {
						t.Errorf("thread %d beyond parsed threads", ti)
						continue
					}
					th := p.threads[p.indexes[ti]]
					ctx := th.Context
					if ti == p.requesting && p.ex != nil && p.ex.Context != nil {
						ctx = p.ex.Context
					}
					if ctx == nil {
						t.Errorf("thread %d (id %#x): no context (%v), Breakpad printed registers", ti, th.ID, th.ContextErr)
						continue
					}
					for name, v := range regs {
						got, ok := ctx.Get(name)
						if !ok || got != v {
							t.Errorf("thread %d (id %#x) frame 0 %s: got %#x valid=%v, Breakpad %#x", ti, th.ID, name, got, ok, v)
						}
					}
				}
			}
		})
	}
}

func compareLines(t *testing.T, what string, want, got []string) {
	t.Helper()
	n := max(len(want), len(got))
	bad := 0
	for i := 0; i < n; i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Errorf("%s line %d:\n  want %q\n  got  %q", what, i, w, g)
			if bad++; bad > 5 {
				return
			}
		}
	}
}
