package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
)

// TestDecompressedSymbolLimit: a .sym.gz over --symbols-max-decompressed-file
// is not used (its module's symbols are reported corrupt); raising the flag
// loads it.
func TestDecompressedSymbolLimit(t *testing.T) {
	dir := t.TempDir()
	dump, err := hostile.BombDump()
	if err != nil {
		t.Fatal(err)
	}
	dumpPath := filepath.Join(dir, "bomb.dmp")
	syms := filepath.Join(dir, "syms")
	symPath := filepath.Join(syms, hostile.BombDebugFile, hostile.BombDebugID, "app.sym.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if err := hostile.SymbolBomb(zw, 3<<20); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	if err := os.MkdirAll(filepath.Dir(symPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(symPath, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dumpPath, dump, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit, want string
	}{
		{"1M", "WARNING: Corrupt symbols, app.pdb"},
		{"4M", "app.exe!bomb"},
	} {
		var out, errOut bytes.Buffer
		status := run([]string{"--symbols-max-decompressed-file", tc.limit, dumpPath, syms}, &out, &errOut)
		if status != 0 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("limit %s: status %d, output lacks %q:\n%s%s", tc.limit, status, tc.want, out.String(), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if status := run([]string{"--symbols-max-decompressed", "-1", dumpPath}, &out, &errOut); status != 2 {
		t.Errorf("negative size: status %d, want 2 (usage)", status)
	}
}

// TestWalksOnlyRequesting: the outputs that print the requesting thread
// alone walk it alone, except -c in --breakpad-compat (Breakpad's module
// list marks the modules of every thread's frames) and when a JSON report,
// which lists every thread, is written too.
func TestWalksOnlyRequesting(t *testing.T) {
	dir := t.TempDir()
	dumpPath := filepath.Join(dir, "d.dmp")
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"-c"}, true},
		{[]string{"-c", "-s"}, true},
		{[]string{"-c", "-d"}, true},
		{[]string{"-b"}, true},
		{[]string{"-b", "--breakpad-compat"}, true},
		{[]string{"-c", "--breakpad-compat"}, false},
		{[]string{"-c", "-m"}, false},
		{[]string{"-m"}, false},
		{[]string{"-s"}, false},
		{[]string{"-t", "1"}, false},
		{[]string{"-c", "--human"}, true},
		{[]string{"-c", "--cyborg", filepath.Join(dir, "c.json")}, false},
		{[]string{"--json"}, false},
	} {
		o := &options{}
		groups := flagGroups()
		var out, errOut bytes.Buffer
		var status int
		cmd := newCommand(o, groups, &out, &errOut, &status)
		if err := cmd.ParseFlags(append(append([]string{}, tc.args...), dumpPath)); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		var active flagGroup
		for _, g := range groups {
			if g.Active() {
				if err := g.Check(o); err != nil {
					t.Fatalf("%v: %v", tc.args, err)
				}
				active = g
			}
		}
		if got := o.walksOnlyRequesting(active); got != tc.want {
			t.Errorf("%v: walks only the requesting thread %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestCrashedOnlyWalksOneThread: by default -c and -b walk the requesting
// thread alone, and print what they printed when every thread was walked,
// but for the module list of -c: a module whose symbols are missing (or
// corrupt) and whose only frames are in threads -c does not print is no
// longer marked "WARNING: No symbols" (Breakpad, and --breakpad-compat,
// mark it). Every corpus dump with Breakpad's default output: the old -c
// output (and -c -s, -c -d) is the full report (with -s, -d) less the
// other threads, the old -b output is the requesting thread's frame lines
// of the full report.
func TestCrashedOnlyWalksOneThread(t *testing.T) {
	dropped, dumps := 0, 0
	for _, g := range goldens(t) {
		if g.machine || g.brief || g.set == "stress" || g.set == "flags" || strings.HasPrefix(g.args[0], "-") ||
			strings.Contains(g.expected, ".nosyms.") || strings.Contains(g.expected, ".inline.") {
			continue
		}
		full, status, _ := runGolden(t, g)
		if status != exitOK && status != exitDump {
			continue
		}
		dumps++
		_, req := withoutOtherThreads(splitLines(full))
		// -s and -d print stack words symbolized with the symbol files the
		// walks loaded: fewer walks must not lose a name.
		for _, flags := range [][]string{nil, {"-s"}, {"-d"}} {
			fullOut := full
			if flags != nil {
				fullOut, _, _ = runGolden(t, g, flags...)
			}
			old, _ := withoutOtherThreads(splitLines(fullOut))
			got, _, _ := runGolden(t, g, append([]string{"-c"}, flags...)...)
			dropped += compareCrashedOnly(t, g.name()+" "+strings.Join(flags, " "), old, splitLines(got), req, flags == nil)
		}
		brief, _, _ := runGolden(t, g, "-b")
		if want := briefOf(req); brief != want {
			t.Errorf("%s: -b printed\n%s\nthe full report's requesting thread is\n%s", g.name(), brief, want)
		}
	}
	t.Logf("%d dumps, %d module marks dropped by -c", dumps, dropped)
	if dumps == 0 {
		t.Fatal("no dump compared")
	}
}

// compareCrashedOnly compares -c's output got with old, the full report
// less the other threads: they differ only by module marks dropped on
// modules with no frame in req, the requesting thread's section. It returns
// how many marks were dropped, logging each when log is set.
func compareCrashedOnly(t *testing.T, name string, old, got, req []string, log bool) int {
	t.Helper()
	if len(got) != len(old) {
		t.Errorf("%s: -c printed %d lines, %d when every thread was walked:\n%s", name, len(got), len(old), strings.Join(got, "\n"))
		return 0
	}
	dropped := 0
	for i := range old {
		if got[i] == old[i] {
			continue
		}
		module, mark, ok := strings.Cut(old[i], "  (WARNING: ")
		if !ok || got[i] != module {
			t.Errorf("%s: -c line %d:\n got %q\nwant %q", name, i+1, got[i], old[i])
			continue
		}
		if m := moduleLineName(module); framesIn(req, m) {
			t.Errorf("%s: -c dropped the mark of %s, which has frames in the printed thread", name, m)
		}
		if log {
			dropped++
			t.Logf("%s: -c no longer marks (WARNING: %s: only other threads' frames are in it", name, mark)
		}
	}
	return dropped
}

// crashedOnlyMarksDropped reports whether got, our -c output (args hold
// -c), differs from Breakpad's want only by module marks dropped on modules
// with no frame in the printed thread.
func crashedOnlyMarksDropped(args, want, got []string) bool {
	if !slices.Contains(args, "-c") || len(want) != len(got) {
		return false
	}
	_, req := withoutOtherThreads(got)
	differ := false
	for i := range want {
		if want[i] == got[i] {
			continue
		}
		module, _, ok := strings.Cut(want[i], "  (WARNING: ")
		if !ok || got[i] != module || framesIn(req, moduleLineName(module)) {
			return false
		}
		differ = true
	}
	return differ
}

// withoutOtherThreads returns the full human report lines less the
// sections of threads other than the requesting one (what -c prints when
// every thread is walked), and the requesting thread's section.
func withoutOtherThreads(lines []string) (kept, requesting []string) {
	in, isReq := false, false
	for i, l := range lines {
		if i > 0 && lines[i-1] == "" && strings.HasPrefix(l, "Thread ") {
			blankKept := !in || isReq
			in, isReq = true, strings.HasSuffix(l, ")")
			if !isReq && blankKept {
				kept = kept[:len(kept)-1] // the blank line before it
			}
		}
		if strings.HasPrefix(l, "Loaded modules:") {
			if in && !isReq {
				kept = append(kept, "")
			}
			in = false
		}
		switch {
		case !in:
			kept = append(kept, l)
		case isReq:
			kept = append(kept, l)
			requesting = append(requesting, l)
		}
	}
	return kept, requesting
}

// briefOf returns what -b prints for a requesting thread's section of the
// human report: its title and frame lines.
func briefOf(section []string) string {
	if len(section) == 0 {
		return " <no crashing or requesting dump thread identified>\n"
	}
	var b strings.Builder
	for i, l := range section {
		// The title, then the frame lines (" 0  module!function"); the
		// lines below each frame are indented by four spaces, or a lone
		// space for an inline frame's registers.
		if t := strings.TrimLeft(l, " "); i == 0 || (t != "" && t[0] >= '0' && t[0] <= '9' && !strings.HasPrefix(l, "    ")) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// moduleLineName returns the code file of a module list line.
func moduleLineName(line string) string {
	f := strings.Fields(line)
	if len(f) < 4 {
		return ""
	}
	return f[3]
}

// framesIn reports whether a frame line of section is in module name.
func framesIn(section []string, name string) bool {
	for _, l := range section {
		if strings.Contains(l, "  "+name+"!") || strings.Contains(l, "  "+name+" + ") {
			return true
		}
	}
	return false
}

// TestDownloadLimit: a symbol server inflating gigabytes through
// Content-Encoding: gzip is cut at --symbols-max-decompressed-file, and
// nothing of it is cached.
func TestDownloadLimit(t *testing.T) {
	srv := hostile.SymbolServer(hostile.GzipBomb)
	defer srv.Close()
	defer srv.CloseClientConnections()
	dir := t.TempDir()
	dump, err := hostile.BombDump()
	if err != nil {
		t.Fatal(err)
	}
	dumpPath := filepath.Join(dir, "bomb.dmp")
	if err := os.WriteFile(dumpPath, dump, 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	var out, errOut bytes.Buffer
	status := run([]string{"--symbols-max-decompressed-file", "1M", "--symbols-cache", cache, dumpPath, srv.URL}, &out, &errOut)
	if status != exitOK || strings.Contains(out.String(), "!bomb") {
		t.Errorf("status %d, symbols from the bomb used:\n%s%s", status, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String()+out.String(), "larger than the download limit") {
		t.Errorf("the refused download is not reported:\n%s%s", out.String(), errOut.String())
	}
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("%s left in the cache", p)
		}
		return nil
	})
}

// TestHostileSmoke is the robustness campaign in small
// (scripts/limits/campaign runs it in full, outside the tests): truncated
// and mutated copies of a dump of each architecture and of its symbol
// files, and a hostile symbol server in each quick mode, processed
// in-process: no panic, and the exit status of a processed or refused dump.
func TestHostileSmoke(t *testing.T) {
	td := corpus.Testdata(t)
	rng := rand.New(rand.NewPCG(17, 17))
	dir := t.TempDir()
	for _, name := range []string{"x86-threads", "amd64-threads", "arm-threads", "arm64-threads"} {
		dump, err := os.ReadFile(filepath.Join(td, "dumps", name+".dmp"))
		if err != nil {
			t.Fatal(err)
		}
		syms, _ := filepath.Glob(filepath.Join(td, "symbols", "*", "*", "*.sym"))
		for _, k := range []int{0, 1, hostile.Truncations, hostile.Truncations + 1} { // two truncations, two mutations
			p := filepath.Join(dir, "in.dmp")
			if err := os.WriteFile(p, hostile.MutateDump(rng, dump, k), 0o644); err != nil {
				t.Fatal(err)
			}
			smokeRun(t, name, p, filepath.Join(td, "symbols"))
			store := filepath.Join(dir, fmt.Sprintf("store-%s-%d", name, k))
			for _, s := range syms {
				data, err := os.ReadFile(s)
				if err != nil {
					t.Fatal(err)
				}
				rel, _ := filepath.Rel(filepath.Join(td, "symbols"), s)
				q := filepath.Join(store, rel)
				os.MkdirAll(filepath.Dir(q), 0o755)
				if err := os.WriteFile(q, hostile.MutateSymbols(rng, data, k), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			smokeRun(t, name+" with mutated symbols", filepath.Join(td, "dumps", name+".dmp"), store)
		}
	}
	for _, mode := range []hostile.ServerMode{hostile.NotSymbols, hostile.Corrupt, hostile.WrongModule, hostile.ShortBody, hostile.RedirectLoop} {
		srv := hostile.SymbolServer(mode)
		smokeRun(t, string(mode), filepath.Join(td, "dumps", "amd64-threads.dmp"), srv.URL,
			"--symbols-cache", filepath.Join(dir, "cache-"+string(mode)), "--symbols-total-timeout", "2s")
		srv.CloseClientConnections()
		srv.Close()
	}
}

func smokeRun(t *testing.T, what string, args ...string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if status := run(args, &out, &errOut); status != exitOK && status != exitDump {
		t.Errorf("%s: status %d:\n%s", what, status, errOut.String())
	}
}
