package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

// runBatchCLI runs "batch args..." with stdin and returns its outputs.
func runBatchCLI(stdin string, args ...string) (results []triage.Result, stderr string, status int) {
	var o, e bytes.Buffer
	status = exitOK
	cmd := newBatchCommand(strings.NewReader(stdin), &o, &e, &status)
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(&e, "minidump-stackwalk: %v\n", err)
		status = exitDump
		if _, ok := err.(usageError); ok {
			status = exitUsage
		}
	}
	sc := bufio.NewScanner(&o)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r triage.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			results = append(results, triage.Result{Path: "BAD JSON LINE", Error: err.Error() + ": " + sc.Text()})
			continue
		}
		results = append(results, r)
	}
	return results, e.String(), status
}

func byPath(rs []triage.Result) map[string]triage.Result {
	m := map[string]triage.Result{}
	for _, r := range rs {
		m[r.Path] = r
	}
	return m
}

// jsonFrames is the crashing thread of the single-dump mode's --json, its
// inlined frames expanded before their physical frame as batch lists them.
func jsonFrames(t *testing.T, out string) []triage.Frame {
	t.Helper()
	type inline struct {
		Function string  `json:"function"`
		File     *string `json:"file"`
		Line     *int    `json:"line"`
	}
	var doc struct {
		CrashingThread *struct {
			Frames []struct {
				Module       *string  `json:"module"`
				Function     *string  `json:"function"`
				File         *string  `json:"file"`
				Line         *int     `json:"line"`
				ModuleOffset *string  `json:"module_offset"`
				Offset       string   `json:"offset"`
				Trust        string   `json:"trust"`
				Inlines      []inline `json:"inlines"`
			} `json:"frames"`
		} `json:"crashing_thread"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("single-dump --json: %v", err)
	}
	if doc.CrashingThread == nil {
		return nil
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	num := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	hex := func(s string) string { // rust-minidump pads its hex; batch does not
		var v uint64
		if _, err := fmt.Sscanf(s, "0x%x", &v); err != nil {
			return s
		}
		return fmt.Sprintf("0x%x", v)
	}
	var frames []triage.Frame
	for _, f := range doc.CrashingThread.Frames {
		for _, in := range f.Inlines {
			frames = append(frames, triage.Frame{Module: str(f.Module), Function: in.Function, File: str(in.File),
				Line: num(in.Line), Offset: hex(str(f.ModuleOffset)), Trust: "inline"})
		}
		off := str(f.ModuleOffset)
		if f.Module == nil {
			off = f.Offset
		}
		frames = append(frames, triage.Frame{Module: str(f.Module), Function: str(f.Function), File: str(f.File),
			Line: num(f.Line), Offset: hex(off), Trust: f.Trust})
	}
	return frames
}

// On the 20 perf dumps, one batch run gives, for every dump, the crashing
// thread's frames the single-dump mode's --json gives.
func TestBatchPerfMatchesSingleDump(t *testing.T) {
	dir := corpus.Shared(t, "perf", "dumps")
	syms := corpus.PerfSymbols(t)
	results, stderr, status := runBatchCLI("", "-j", "2", "--symbols-path", syms, dir)
	if status != exitOK {
		t.Fatalf("batch: status %d\n%s", status, stderr)
	}
	dumps, _ := filepath.Glob(filepath.Join(dir, "*.dmp"))
	if len(results) != len(dumps) || len(dumps) != 20 {
		t.Fatalf("%d results for %d dumps (want 20)", len(results), len(dumps))
	}
	got := byPath(results)
	for _, d := range dumps {
		out, errOut, st := runCLI("--json", d, syms)
		if st != exitOK {
			t.Fatalf("%s: single-dump status %d: %s", d, st, errOut)
		}
		want := jsonFrames(t, out)
		r := got[d]
		if r.Status != triage.StatusOK || len(want) == 0 {
			t.Errorf("%s: status %q, %d frames in the single-dump mode", d, r.Status, len(want))
		}
		if diff := cmp.Diff(want, r.Frames); diff != "" {
			t.Errorf("%s: batch frames differ from the single-dump mode's (-single +batch):\n%s", d, diff)
		}
		if r.Signature == "" || len(r.StackID) != 16 {
			t.Errorf("%s: signature %q, stack_id %q", d, r.Signature, r.StackID)
		}
	}
}

// testdataInputs copies a few testdata dumps, a core and broken inputs into
// a temporary directory tree.
func testdataInputs(t *testing.T) (dir string, good []string) {
	t.Helper()
	dir = t.TempDir()
	sub := filepath.Join(dir, "sub", "deeper")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"amd64-fp", "x86-abort", "arm64-cpp", "arm-recursion", "amd64-threads"} {
		data, err := os.ReadFile(corpus.Testdata(t, "dumps", name+".dmp"))
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dir, name+".dmp")
		if i%2 == 1 {
			target = filepath.Join(sub, name) // no extension: found by content
		}
		if err := os.WriteFile(target, data, 0o600); err != nil {
			t.Fatal(err)
		}
		good = append(good, target)
	}
	core := filepath.Join(sub, "x86-threads.core")
	if err := os.WriteFile(core, corpus.TestdataCore(t, "x86-threads"), 0o600); err != nil {
		t.Fatal(err)
	}
	good = append(good, core)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a dump\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	slices.Sort(good)
	return dir, good
}

func TestBatchDirectoryFindsDumpsByContent(t *testing.T) {
	dir, good := testdataInputs(t)
	syms := corpus.Testdata(t, "symbols")
	results, stderr, status := runBatchCLI("", "--symbols-path", syms, dir)
	if status != exitOK {
		t.Fatalf("status %d\n%s", status, stderr)
	}
	var paths []string
	for _, r := range results {
		paths = append(paths, r.Path)
		if r.Status != triage.StatusOK || r.CrashingThread == nil || len(r.Frames) == 0 || r.Signature == "" {
			t.Errorf("%s: %+v", r.Path, r)
		}
	}
	slices.Sort(paths)
	if !slices.Equal(paths, good) {
		t.Errorf("inputs found %v, want %v", paths, good)
	}
	if strings.Contains(stderr, "\r") {
		t.Errorf("progress shown though stderr is not a terminal:\n%q", stderr)
	}
	if !strings.Contains(stderr, "6 inputs: 6 ok") {
		t.Errorf("stderr lacks the totals line:\n%s", stderr)
	}
}

// Broken, truncated, hostile and missing inputs each get their line; the
// run goes on, and the exit status is 1.
func TestBatchFailureIsolation(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(corpus.Testdata(t, "dumps", "amd64-fp.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hostile := bytes.Clone(good)
	// A stream directory with an absurd count and offsets.
	copy(hostile[8:], []byte{0xff, 0xff, 0xff, 0x7f, 0xf0, 0xff, 0xff, 0xff})
	inputs := map[string]string{
		write("good.dmp", good):               triage.StatusOK,
		write("truncated.dmp", good[:300]):    triage.StatusPartial,
		write("garbage.dmp", []byte("hello")): triage.StatusInvalid,
		write("empty.dmp", nil):               triage.StatusInvalid,
		write("hostile.dmp", hostile):         triage.StatusInvalid,
		filepath.Join(dir, "missing.dmp"):     triage.StatusUnreadable,
	}
	var args []string
	for p := range inputs {
		args = append(args, p)
	}
	slices.Sort(args)
	results, stderr, status := runBatchCLI("", args...)
	if status != exitDump {
		t.Errorf("status %d, want 1", status)
	}
	got := byPath(results)
	for p, want := range inputs {
		r, ok := got[p]
		if !ok {
			t.Errorf("%s: no result line", p)
			continue
		}
		if r.Status != want && !(want == triage.StatusPartial && r.Status == triage.StatusInvalid) {
			t.Errorf("%s: status %q (%s), want %q", p, r.Status, r.Error, want)
		}
		if r.Status != triage.StatusOK && (r.Error == "" || !strings.Contains(stderr, p)) {
			t.Errorf("%s: no error text, or no stderr line:\n%s", p, stderr)
		}
	}
}

// A panic while processing one dump is that dump's internal_error; a dump
// over --timeout is reported as such; the others are processed.
func TestBatchPanicAndTimeout(t *testing.T) {
	var stderr bytes.Buffer
	var out bytes.Buffer
	b := &batchFlags{jobs: 2, timeout: 200 * time.Millisecond, examples: 3, progress: "never", top: 5}
	b.o.symbolServer.addFlags(pflag.NewFlagSet("symbols", pflag.ContinueOnError)) // their defaults
	b.o.symbolServer.timeout = time.Second
	b.o.limits.addFlags(pflag.NewFlagSet("limits", pflag.ContinueOnError)) // their defaults
	if err := b.check(&stderr); err != nil {
		t.Fatal(err)
	}
	r := &batchRun{flags: b, builder: summary.NewBuilder(3), stderr: &stderr, out: &out}
	release := make(chan struct{})
	r.process = func(o *options, path string, sup symfile.Supplier, _ io.Writer) triage.Result {
		switch path {
		case "panics":
			var m map[string]int
			//lint:ignore SA5000 a nil map write: the runtime panic under test
			m["x"]++
		case "hangs":
			<-release
		}
		n := 0
		return triage.Result{Path: path, Status: triage.StatusOK, CrashingThread: &n,
			Frames: []triage.Frame{{Module: "m", Function: "f_" + path, Offset: "0x1", Trust: "context"}}}
	}
	status := r.run([]string{"a", "panics", "hangs", "b"})
	close(release)
	if status != exitInternal {
		t.Errorf("status %d, want %d: an internal error (issue 26, item 19)", status, exitInternal)
	}
	var results []triage.Result
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var res triage.Result
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		results = append(results, res)
	}
	got := byPath(results)
	want := map[string]string{"a": triage.StatusOK, "b": triage.StatusOK, "panics": triage.StatusInternalError, "hangs": triage.StatusTimeout}
	for p, st := range want {
		if got[p].Status != st {
			t.Errorf("%s: status %q (%s), want %q", p, got[p].Status, got[p].Error, st)
		}
	}
	if !strings.Contains(got["panics"].Error, "assignment to entry in nil map") {
		t.Errorf("internal error text: %q", got["panics"].Error)
	}
	if got["a"].Signature != "f_a" {
		t.Errorf("signature of a: %q", got["a"].Signature)
	}
}

func TestBatchStdinPaths(t *testing.T) {
	dir, good := testdataInputs(t)
	_ = dir
	for _, nul := range []bool{false, true} {
		sep, args := "\n", []string{"-"}
		if nul {
			sep, args = "\x00", []string{"-0", "-"}
		}
		results, stderr, status := runBatchCLI(strings.Join(good, sep)+sep, args...)
		if status != exitOK || len(results) != len(good) {
			t.Errorf("nul %v: status %d, %d results for %d paths\n%s", nul, status, len(results), len(good), stderr)
		}
	}
}

// Shard runs merged give the summary of one run over all inputs.
func TestBatchShardMergeEqualsWhole(t *testing.T) {
	dir, _ := testdataInputs(t)
	syms := corpus.Testdata(t, "symbols")
	tmp := t.TempDir()
	extra := filepath.Join(tmp, "garbage.dmp")
	if err := os.WriteFile(extra, []byte("MDMPgarbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--symbols-path", syms, "--examples", "2", dir, corpus.Testdata(t, "dumps"), extra}
	whole := filepath.Join(tmp, "whole.json")
	if _, stderr, _ := runBatchCLI("", append([]string{"--summary", whole}, args...)...); !fileExists(whole) {
		t.Fatalf("no summary written:\n%s", stderr)
	}
	const n = 3
	var parts []string
	total := 0
	for i := range n {
		p := filepath.Join(tmp, fmt.Sprintf("shard%d.json", i))
		results, stderr, _ := runBatchCLI("", append([]string{"--shard", fmt.Sprintf("%d/%d", i, n), "--summary", p}, args...)...)
		if !fileExists(p) {
			t.Fatalf("shard %d: no summary:\n%s", i, stderr)
		}
		total += len(results)
		parts = append(parts, p)
	}
	merged := filepath.Join(tmp, "merged.json")
	html := filepath.Join(tmp, "merged.html")
	var o, e bytes.Buffer
	st := exitOK
	cmd := newBatchCommand(nil, &o, &e, &st)
	cmd.SetArgs(append([]string{"merge", "--examples", "2", "--summary", merged, "--html", html}, parts...))
	if err := cmd.Execute(); err != nil || st != exitOK {
		t.Fatalf("merge: %v, status %d\n%s", err, st, e.String())
	}
	w, m := readSummary(t, whole), readSummary(t, merged)
	// The runs differ: the merged summary's is the merge, with the shards'
	// runs as its parts.
	if diff := cmp.Diff(w, m, cmpopts.IgnoreFields(summary.Summary{}, "Run")); diff != "" {
		t.Errorf("merged shard summaries differ from the whole run's (-whole +merged):\n%s", diff)
	}
	if m.Run == nil || len(m.Run.Parts) != n || m.Run.Args[0] != "merge" || !slices.Contains(m.Run.Parts[1].Args, "--shard=1/3") {
		t.Errorf("merged run %+v: want merge's, with the %d shards' runs as parts", m.Run, n)
	}
	if total != w.Inputs || w.Inputs < 30 || w.Statuses[triage.StatusInvalid] != 1 {
		t.Errorf("shards processed %d inputs, the whole run %d (statuses %v)", total, w.Inputs, w.Statuses)
	}
	if !fileExists(html) {
		t.Error("merge wrote no HTML report")
	}
}

func readSummary(t *testing.T, path string) *summary.Summary {
	t.Helper()
	s, _, err := readSummaryFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestBatchOutputDir(t *testing.T) {
	out := t.TempDir()
	d := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	results, stderr, status := runBatchCLI("", "--output-dir", out, d, filepath.Join(out, "nope.dmp"))
	if status != exitDump || len(results) != 2 {
		t.Fatalf("status %d, %d results\n%s", status, len(results), stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(files) != 2 {
		t.Fatalf("output dir holds %v, want 2 reports", files)
	}
	want, _, _ := runCLI("--json", d)
	report, err := os.ReadFile(filepath.Join(out, reportName(d)))
	if err != nil || string(report) != want {
		t.Errorf("%s: the --output-dir report differs from the single-dump --json (%v)", d, err)
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		var doc struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal(data, &doc); err != nil || doc.Status == "" {
			t.Errorf("%s: %v, status %q", f, err, doc.Status)
		}
	}
}

func TestBatchUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--shard", "3/3", "x"},
		{"--shard", "a/b", "x"},
		{"-j", "0", "x"},
		{"--progress", "sometimes", "x"},
		{"--signature-rules", "/nonexistent/rules.txt", "x"},
		{"--nosuchflag", "x"},
		{"merge"},
	} {
		_, stderr, status := runBatchCLI("", args...)
		if status != exitUsage {
			t.Errorf("batch %q: status %d, want 2\n%s", args, status, stderr)
		}
	}
}

func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, 4, "always")
	p.every = 0
	p.done(true)
	p.done(false)
	p.println("an error line")
	p.finish()
	want := "\r\x1b[K1/4 dumps"
	if out := buf.String(); !strings.HasPrefix(out, want) || !strings.Contains(out, "\r\x1b[Kan error line\n2/4 dumps") ||
		!strings.Contains(out, "1 failed") || !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("progress output %q", out)
	}
	buf.Reset()
	q := newProgress(&buf, 4, "auto") // a buffer is not a terminal
	q.done(true)
	q.println("an error line")
	q.finish()
	if buf.String() != "an error line\n" {
		t.Errorf("auto progress on a non-terminal wrote %q", buf.String())
	}
}

// With a symbol server, each file is asked for once per run, however many
// dumps need it, found or not (the run-wide negative cache); the frames
// equal those walked with the same files on disk.
func TestBatchSymbolServerAskedOncePerRun(t *testing.T) {
	symbols := corpus.Testdata(t, "symbols")
	dump, err := os.ReadFile(corpus.Testdata(t, "dumps", "amd64-libc.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range 6 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("copy%d.dmp", i)), dump, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	asked := map[string]int{}
	files := http.FileServer(http.Dir(symbols))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path]++
		mu.Unlock()
		http.StripPrefix("/symbols", files).ServeHTTP(w, r)
	}))
	defer srv.Close()

	local, stderr, status := runBatchCLI("", "--symbols-path", symbols, dir)
	if status != exitOK {
		t.Fatalf("local symbols: status %d\n%s", status, stderr)
	}
	remote, stderr, status := runBatchCLI("", "-j", "3", "--symbols-url", srv.URL+"/symbols", "--symbols-cache", t.TempDir(), dir)
	if status != exitOK {
		t.Fatalf("symbol server: status %d\n%s", status, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) == 0 {
		t.Fatal("the symbol server was not asked")
	}
	found := 0
	for path, n := range asked {
		if n != 1 {
			t.Errorf("%s asked %d times in one run, want once", path, n)
		}
		if strings.HasSuffix(path, ".sym") {
			found++
		}
	}
	if found == 0 {
		t.Errorf("no .sym file asked for: %v", asked)
	}
	l, r := byPath(local), byPath(remote)
	for p, want := range l {
		if diff := cmp.Diff(want.Frames, r[p].Frames); diff != "" {
			t.Errorf("%s: frames with the symbol server differ from local symbols:\n%s", p, diff)
		}
		if len(want.Frames) == 0 || want.Frames[0].Function == "" {
			t.Errorf("%s: no symbolised frames: %+v", p, want.Frames)
		}
	}
}

// Microdumps in a directory are found by content and give the frames of
// the single-dump mode.
func TestBatchMicrodumps(t *testing.T) {
	dir := corpus.Shared(t, "corpus", "breakpad")
	syms := filepath.Join(dir, "symbols", "microdump")
	results, stderr, _ := runBatchCLI("", "--symbols-path", syms, filepath.Join(dir, "microdumps"))
	ok := 0
	for _, r := range results {
		if r.Status != triage.StatusOK {
			continue // MIPS: no walker, as in the single-dump mode
		}
		ok++
		out, _, _ := runCLI("--json", r.Path, syms)
		if diff := cmp.Diff(jsonFrames(t, out), r.Frames); diff != "" {
			t.Errorf("%s: batch frames differ from the single-dump mode's:\n%s", r.Path, diff)
		}
	}
	if len(results) != 7 || ok < 5 {
		t.Errorf("%d results, %d ok; want 7 and at least 5 (arm, arm64, x86)\n%s", len(results), ok, stderr)
	}
}

// A symbol server that does not answer is asked once in the run, not
// once per module or per dump: one module's warning, and the run goes on.
func TestBatchDeadSymbolServerAskedOnce(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()                          // nothing listens there now
	dumps := corpus.Testdata(t, "dumps") // many modules
	results, stderr, status := runBatchCLI("", "-j", "1", "--symbols-url", url, "--symbols-cache", t.TempDir(), dumps)
	if status != exitOK || len(results) < 30 {
		t.Fatalf("status %d, %d results\n%s", status, len(results), stderr)
	}
	modules := map[string]bool{}
	for _, line := range strings.Split(stderr, "\n") {
		if rest, ok := strings.CutPrefix(line, "minidump-stackwalk: warning: symbols of "); ok {
			name, _, _ := strings.Cut(rest, ":")
			modules[name] = true
		}
	}
	if len(modules) != 1 {
		t.Errorf("warnings about %d modules, want 1 (the server asked once):\n%s", len(modules), stderr)
	}
}

// batch takes the single-dump mode's symbol index flags: the results are
// the same with an index directory (which the run fills) and with
// --no-index.
func TestBatchSymbolIndex(t *testing.T) {
	dumps := []string{corpus.Testdata(t, "dumps", "amd64-fp.dmp"), corpus.Testdata(t, "dumps", "x86-threads.dmp")}
	symbols := corpus.Testdata(t, "symbols")
	index := t.TempDir()
	with, stderr, status := runBatchCLI("", append([]string{"--index-dir", index, "--symbols-path", symbols}, dumps...)...)
	if status != exitOK || len(with) != len(dumps) {
		t.Fatalf("--index-dir: status %d, %d results\n%s", status, len(with), stderr)
	}
	if files, _ := os.ReadDir(index); len(files) == 0 {
		t.Error("the index directory is empty after the run")
	}
	without, stderr, status := runBatchCLI("", append([]string{"--no-index", "--symbols-path", symbols}, dumps...)...)
	if status != exitOK {
		t.Fatalf("--no-index: status %d\n%s", status, stderr)
	}
	byPath := func(rs []triage.Result) map[string]triage.Result {
		m := map[string]triage.Result{}
		for _, r := range rs {
			r.Milliseconds = 0
			m[r.Path] = r
		}
		return m
	}
	if d := cmp.Diff(byPath(without), byPath(with)); d != "" {
		t.Errorf("results differ with the index (-no-index +index):\n%s", d)
	}
	if _, errOut, status := runBatchCLI("", "--debuginfo-path", filepath.Join(index, "missing"), dumps[0]); status != exitUsage {
		t.Errorf("batch --debuginfo-path missing: status %d, stderr %q", status, errOut)
	}
}

// hexAddress formats as fmt's "0x%x" does (the oracle).
func TestHexAddress(t *testing.T) {
	for _, v := range []uint64{0, 1, 0xf, 0x10, 0xdeadbeef, 0x7fffffffffff, 1<<64 - 1} {
		if got, want := hexAddress(v), fmt.Sprintf("0x%x", v); got != want {
			t.Errorf("hexAddress(%d) = %q, want %q", v, got, want)
		}
	}
}
