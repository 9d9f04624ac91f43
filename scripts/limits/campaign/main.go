//go:build linux

// Command campaign runs the tool on hostile input and reports the runs that
// panic, take longer than 5 s or peak over 512 MB RSS (docs/limits.md):
//
//	go run ./scripts/limits/campaign [-j 2] [-mutations 30] BIN PATH...
//
// Each PATH is a dump, a symbol file or a directory searched for both
// (*.dmp, files under a directory named microdumps, *.sym, *.sym.gz).
// The runs, each its own process bounded at 60 s:
//   - dumps: 5 truncations and -mutations mutations of each dump
//     (hostile.MutateDump: random bytes, 32-bit fields set to 0xffffffff or
//     large counts), walked with every symbol store found under the PATHs;
//   - symbols: 5 truncations and -mutations mutations of each symbol file
//     (hostile.MutateSymbols: extreme numbers, random bytes, lines
//     deleted, repeated up to 1000 times, moved, replaced by random
//     records or CFI rules), alone in a store, walked against the dump that
//     lists its module (found by the tool's -m output) or, for a symbol
//     file no dump lists, a dump made for it (hostile.DumpForSymbols);
//   - hostile: the generated worst cases of scripts/limits (hostile counts,
//     deep shared frame chains, 2 GiB .sym.gz and .sym.zst bombs), issue
//     26's inputs inside the bounds (--json on 1.1M unloaded modules and a
//     64 MiB microdump, --json --pretty on the shared chain), -d on 1000
//     threads, names holding escapes in every text output, and 4 GiB of
//     zeros behind a minidump header, gzip-compressed, as a file and on
//     standard input;
//   - scenario: issue 26's cases around a run (scenarios.go): a dump and
//     a .sym truncated and rewritten while mapped (one run, and batch), batch
//     --timeout over hostile dumps, a FIFO in the index directory and in a
//     symbol store, a .sym edited in place with the same size and mtime,
//     batch over linked, dangling and mode-0 inputs, batch stopped by a
//     closed pipe and by SIGTERM; each with its expected outcome checked
//     (exit status, the file named, the summary written, no temporaries);
//   - server: a hostile symbol server on loopback in each hostile.ServerMode,
//     with --symbols-total-timeout (-server-total), and once more with the
//     default timeouts, reported apart. Each run has a server of its own,
//     and its line in the report counts the requests that server saw.
//
// A run is flagged when it panics, is killed, takes over 5 s, peaks over
// 512 MB, prints over 60 lines on stderr, or writes a raw control byte
// (controlCounter) on stderr or in a text output, or, for a scenario,
// ends otherwise than expected ("wrong"). Inputs of flagged runs
// are kept in -keep.
//
// With -serve MODE it runs nothing: it serves a hostile symbol server in
// that mode on -addr until killed, to time the tool against by hand.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
)

const (
	maxWall = 5 * time.Second
	maxRSS  = 512 << 10 // KiB
	// maxWarnings flags a warning flood: warnings of one kind are printed
	// five at a time and then counted, so a run printing more lines on
	// stderr repeats a warning it should summarise.
	maxWarnings = 60
)

type config struct {
	bin         string
	mutations   int
	keep        string
	serverTotal time.Duration
	tmp         string
}

// job is one run of the tool.
type job struct {
	kind  string // dumps, symbols, hostile, server, server-defaults
	name  string // for the report
	args  []string
	files map[string][]byte // written, relative to the job's directory, before the run
	input []byte            // kept when the run is flagged
	// server, when set, is a hostile symbol server started for this run
	// alone; serverURL in args is replaced by its URL.
	server hostile.ServerMode
	// stdin, when set, names the file of files given on standard input.
	stdin string
	// hooks, when set, are a scenario's steps and expected outcome
	// (scenarios.go).
	hooks *scenarioHooks
}

// serverURL stands for the URL of a job's own server in its args.
const serverURL = "{server}"

// result is what one run did.
type result struct {
	job
	wall   time.Duration
	cpu    time.Duration // user and system time
	rss    int64         // KiB
	status int
	lines  int    // lines on stderr
	ctl    int64  // raw control bytes on stdout and stderr (controlCounter)
	what   string // "", panic, killed, slow, big, flood, ctl, wrong
	// wrong says how a scenario's outcome differs from the expected one.
	wrong string
	// requests is the number of requests the run's own server saw.
	requests int64
}

func main() {
	var c config
	workers := flag.Int("j", 2, "runs at once")
	flag.IntVar(&c.mutations, "mutations", 30, "mutations of each dump and symbol file (besides 5 truncations)")
	flag.StringVar(&c.keep, "keep", "campaign-flagged", "directory for the inputs of flagged runs")
	flag.DurationVar(&c.serverTotal, "server-total", 3*time.Second, "--symbols-total-timeout of the server runs")
	seed := flag.Uint64("seed", 17, "random seed")
	only := flag.String("only", "", "run only this kind: dumps, symbols, hostile, scenario or server")
	match := flag.String("match", "", "run only the runs whose name holds this `text`")
	serve := flag.String("serve", "", "only serve a hostile symbol server in this `mode` (trickle, gzip-bomb, ...) on -addr")
	addr := flag.String("addr", "127.0.0.1:0", "address of the -serve server")
	flag.Parse()
	if *serve != "" {
		serveOnly(hostile.ServerMode(*serve), *addr)
		return
	}
	if flag.NArg() < 2 {
		fmt.Fprintln(os.Stderr, "usage: campaign [flags] BIN PATH...")
		os.Exit(2)
	}
	c.bin = flag.Arg(0)
	var err error
	if c.tmp, err = os.MkdirTemp("", "campaign-"); err != nil {
		fail(err)
	}
	defer os.RemoveAll(c.tmp)

	dumps, syms := findInputs(flag.Args()[1:])
	stores := storeRoots(syms)
	fmt.Printf("%d dumps, %d symbol files, %d symbol stores\n", len(dumps), len(syms), len(stores))
	rng := rand.New(rand.NewPCG(*seed, *seed))
	var jobs []job
	want := func(kind string) bool { return *only == "" || *only == kind }
	if want("dumps") {
		jobs = append(jobs, dumpJobs(&c, rng, dumps, stores)...)
	}
	if want("symbols") {
		jobs = append(jobs, symbolJobs(&c, rng, dumps, syms)...)
	}
	if want("hostile") {
		jobs = append(jobs, hostileJobs(c.tmp)...)
	}
	if want("scenario") {
		jobs = append(jobs, scenarioJobs()...)
	}
	if want("server") {
		jobs = append(jobs, serverJobs(&c, dumps)...)
	}
	if *match != "" {
		jobs = slices.DeleteFunc(jobs, func(j job) bool { return !strings.Contains(j.name, *match) })
	}
	results := runAll(&c, jobs, *workers)
	report(results)
}

// serveOnly serves a hostile symbol server in mode on addr until killed.
func serveOnly(mode hostile.ServerMode, addr string) {
	if !slices.Contains(hostile.ServerModes, mode) {
		fail(fmt.Errorf("-serve %q: want one of %v", mode, hostile.ServerModes))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fail(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	fail(http.Serve(ln, hostile.SymbolHandler(mode)))
}

// findInputs walks paths for dumps and symbol files.
func findInputs(paths []string) (dumps, syms []string) {
	for _, p := range paths {
		filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			switch name := d.Name(); {
			case strings.HasSuffix(name, ".dmp"), filepath.Base(filepath.Dir(path)) == "microdumps":
				dumps = append(dumps, path)
			case strings.HasSuffix(name, ".sym"), strings.HasSuffix(name, ".sym.gz"):
				syms = append(syms, path)
			}
			return nil
		})
	}
	return dumps, syms
}

// storeRoots returns the symbol stores holding syms: the directory three
// levels up of a file at DebugFile/DebugID/name.
func storeRoots(syms []string) []string {
	seen := map[string]bool{}
	var roots []string
	for _, s := range syms {
		root := filepath.Dir(filepath.Dir(filepath.Dir(s)))
		if m, err := readModule(s); err == nil && filepath.Base(filepath.Dir(s)) == m.DebugID && !seen[root] {
			seen[root] = true
			roots = append(roots, root)
		}
	}
	sort.Strings(roots)
	return roots
}

// readSymbols returns a symbol file's text, inflated when gzipped.
func readSymbols(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return data, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

func readModule(path string) (hostile.SymbolModule, error) {
	f, err := os.Open(path)
	if err != nil {
		return hostile.SymbolModule{}, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			return hostile.SymbolModule{}, err
		}
	}
	line, _ := bufio.NewReader(r).ReadBytes('\n')
	return hostile.ReadSymbolModule(line)
}

func dumpJobs(c *config, rng *rand.Rand, dumps, stores []string) []job {
	var jobs []job
	for _, d := range dumps {
		data, err := os.ReadFile(d)
		if err != nil || len(data) < 64 {
			continue
		}
		for k := range hostile.Truncations + c.mutations {
			in := hostile.MutateDump(rng, data, k)
			// Each text output in turn (checked for raw control bytes), and
			// the JSON printer, which reads every stream.
			args := append(slices.Clone(outputFlags[k%len(outputFlags)]), "in.dmp")
			jobs = append(jobs, job{kind: "dumps", name: fmt.Sprintf("%s#%d", d, k),
				args: append(args, stores...), files: map[string][]byte{"in.dmp": in}, input: in})
		}
	}
	return jobs
}

// outputFlags are the outputs the dump runs take in turn.
var outputFlags = [][]string{nil, {"-m"}, {"-b"}, {"-s"}, {"--json"}, {"-d"}, {"--dump"}, {"-c", "-s"}}

// symbolJobs mutates each symbol file and walks it against a dump listing
// its module.
func symbolJobs(c *config, rng *rand.Rand, dumps, syms []string) []job {
	listing := modulesOfDumps(c.bin, dumps)
	var jobs []job
	real, made, skipped := 0, 0, 0
	for _, s := range syms {
		data, err := readSymbols(s)
		if err != nil {
			fmt.Printf("%s: %v (skipped)\n", s, err)
			skipped++
			continue
		}
		m, err := hostile.ReadSymbolModule(data)
		if err != nil {
			fmt.Printf("%s: %v (skipped)\n", s, err)
			skipped++
			continue
		}
		var dump []byte
		if d, ok := listing[strings.ToLower(m.DebugFile)+"/"+m.DebugID]; ok {
			dump, err = os.ReadFile(d)
			real++
		} else {
			dump, err = hostile.DumpForSymbols(data)
			made++
		}
		if err != nil {
			fmt.Printf("%s: no dump: %v (skipped)\n", s, err)
			skipped++
			continue
		}
		symPath := filepath.Join("store", filepath.FromSlash(m.StorePath()))
		for k := range hostile.Truncations + c.mutations {
			in := hostile.MutateSymbols(rng, data, k)
			jobs = append(jobs, job{kind: "symbols", name: fmt.Sprintf("%s#%d", s, k),
				args:  []string{"in.dmp", "store"},
				files: map[string][]byte{"in.dmp": dump, symPath: in}, input: in})
		}
	}
	fmt.Printf("symbol files: %d walked against a corpus dump, %d against a dump made for them, %d skipped\n", real, made, skipped)
	return jobs
}

// modulesOfDumps maps "debug file/debug id" (the file lowercased) to a
// dump listing that module, from the tool's -m Module lines.
func modulesOfDumps(bin string, dumps []string) map[string]string {
	out := map[string]string{}
	for _, d := range dumps {
		b, _ := exec.Command(bin, "-m", d).Output()
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Split(l, "|")
			if len(f) < 5 || f[0] != "Module" {
				continue
			}
			key := strings.ToLower(f[3]) + "/" + f[4]
			if _, ok := out[key]; !ok {
				out[key] = d
			}
		}
	}
	return out
}

// hostileJobs are the generated worst cases of docs/limits.md; the symbol
// bombs are written once, under tmp.
func hostileJobs(tmp string) []job {
	var jobs []job
	add := func(name string, data []byte, err error, flags ...string) {
		if err != nil {
			fail(fmt.Errorf("%s: %w", name, err))
		}
		jobs = append(jobs, job{kind: "hostile", name: name + " " + strings.Join(flags, " "),
			args: append(flags, "in.dmp"), files: map[string][]byte{"in.dmp": data}})
	}
	add("microdump-160k-modules", hostile.Microdump(160_000), nil)
	d, err := hostile.ModuleList(80_000)
	add("modules-80k", d, err)
	d, err = hostile.UnloadedModules(400_000)
	add("unloaded-400k", d, err)
	d, err = hostile.FrameChain(100, 100_000)
	add("threads-100x100k-frames", d, err)
	add("threads-100x100k-frames", d, err, "-c")
	add("threads-100x100k-frames", d, err, "-b")
	add("threads-100x100k-frames", d, err, "-m")
	add("threads-100x100k-frames", d, err, "--json")
	add("threads-100x100k-frames", d, err, "-c", "--breakpad-compat")
	d, err = hostile.OverlappingMemory(100_000)
	add("memory-100k-overlapping", d, err)
	d, err = hostile.UnreadableStacks(4096)
	add("unreadable-stacks-4096", d, err)
	// Issue 26: inside the documented bounds (item 5), -d on 1000 threads
	// (item 6), escapes in names (item 12), a bomb behind a valid header.
	d, err = hostile.UnloadedModules(1_100_000)
	add("unloaded-1100k", d, err, "--json")
	add("microdump-64m", hostile.MicrodumpNear(64<<20), nil, "--json")
	d, err = hostile.FrameChain(100, 100_000)
	add("threads-100x100k-frames", d, err, "--json", "--pretty")
	d, err = hostile.FrameChain(1000, 100_000)
	add("threads-1000x100k-frames", d, err, "-d")
	d, err = hostile.EscapeNames()
	for _, flags := range append(outputFlags, []string{"-c"}) {
		add("escape-names", d, err, flags...)
	}
	var zeros bytes.Buffer
	if err := hostile.ZerosBehindHeader(&zeros, 4<<30); err != nil {
		fail(err)
	}
	jobs = append(jobs, job{kind: "hostile", name: "4 GiB of zeros behind a header, .dmp.gz",
		args: []string{"in.dmp.gz"}, files: map[string][]byte{"in.dmp.gz": zeros.Bytes()}})
	jobs = append(jobs, job{kind: "hostile", name: "4 GiB of zeros behind a header, gzip on stdin",
		args: []string{"-"}, stdin: "in.dmp.gz", files: map[string][]byte{"in.dmp.gz": zeros.Bytes()}})
	d, err = hostile.BombDump()
	if err != nil {
		fail(err)
	}
	for _, ext := range []string{".gz", ".zst"} {
		store := filepath.Join(tmp, "bomb"+ext)
		if err := hostile.WriteBombStore(store, ext, 2<<30); err != nil {
			fail(err)
		}
		jobs = append(jobs, job{kind: "hostile", name: "bomb 2 GiB" + ext,
			args: []string{"in.dmp", store}, files: map[string][]byte{"in.dmp": d}})
	}
	return jobs
}

// serverJobs returns the runs asking a hostile symbol server, one per mode
// and dump, for symbols.
func serverJobs(c *config, dumps []string) []job {
	bomb, err := hostile.BombDump()
	if err != nil {
		fail(err)
	}
	// A corpus dump with many modules: one request per module.
	var many []byte
	for _, d := range dumps {
		if filepath.Base(d) == "tiny-exe-with-cet-xsave.dmp" {
			many, _ = os.ReadFile(d)
		}
	}
	var jobs []job
	for _, mode := range hostile.ServerModes {
		for _, d := range []struct {
			name string
			data []byte
		}{{"bomb.dmp", bomb}, {"tiny-exe-with-cet-xsave.dmp", many}} {
			if d.data == nil {
				continue
			}
			common := []string{"in.dmp", serverURL, "--symbols-cache", "cache"}
			name := string(mode) + " " + d.name
			files := map[string][]byte{"in.dmp": d.data}
			jobs = append(jobs,
				job{kind: "server", name: name, files: files, server: mode,
					args: append(common, "--symbols-total-timeout", c.serverTotal.String())},
				job{kind: "server-defaults", name: name, files: files, server: mode, args: common})
		}
	}
	return jobs
}

// startServer starts the hostile server of a job, counting its requests,
// and returns the job's args with its URL, and the function that stops it.
func startServer(j job, requests *atomic.Int64) ([]string, func()) {
	h := hostile.SymbolHandler(j.server)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	args := slices.Clone(j.args)
	for i, a := range args {
		if a == serverURL {
			args[i] = srv.URL
		}
	}
	return args, func() {
		srv.CloseClientConnections()
		srv.Close()
	}
}

func runAll(c *config, jobs []job, workers int) []result {
	results := make([]result, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = runJob(c, jobs[i], fmt.Sprintf("w%d", w))
				mu.Lock()
				done++
				if r := results[i]; r.server != "" {
					fmt.Printf("%s %s: %v (CPU %v), %d KiB, exit %d, %d stderr lines, %d requests%s\n", r.kind, r.name,
						r.wall.Round(time.Millisecond), r.cpu.Round(time.Millisecond), r.rss, r.status, r.lines, r.requests,
						map[bool]string{true: ", " + r.what}[r.what != ""])
				} else if r.what != "" || r.hooks != nil {
					fmt.Printf("%s %s: %s: %v (CPU %v), %d KiB, exit %d, %d stderr lines%s\n", r.kind, r.name, r.what,
						r.wall.Round(time.Millisecond), r.cpu.Round(time.Millisecond), r.rss, r.status, r.lines,
						map[bool]string{true: ": " + r.wrong}[r.wrong != ""])
				}
				if done%500 == 0 {
					fmt.Printf("... %d of %d runs, %v\n", done, len(jobs), time.Since(start).Round(time.Second))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	fmt.Printf("%d runs in %v with %d at once\n", len(jobs), time.Since(start).Round(time.Second), workers)
	return results
}

func runJob(c *config, j job, worker string) result {
	dir := filepath.Join(c.tmp, worker)
	os.RemoveAll(dir)
	for name, data := range j.files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fail(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			fail(err)
		}
	}
	if j.hooks != nil && j.hooks.setup != nil {
		if err := j.hooks.setup(c, dir); err != nil {
			return result{job: j, status: -1, what: "wrong", wrong: "setup: " + err.Error()}
		}
	}
	// Peak RSS comes from /usr/bin/time: the rusage of a child forked from
	// this process counts this process's memory too (Linux carries the
	// pre-exec high-water mark over exec).
	rssFile := filepath.Join(dir, ".rss")
	args := j.args
	var requests atomic.Int64
	if j.server != "" {
		var stop func()
		args, stop = startServer(j, &requests)
		defer stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/usr/bin/time", append([]string{"-f", "%U %S %M", "-o", rssFile, c.bin}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Dir = dir
	// The symbol index goes to a cache of the campaign's own.
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(c.tmp, "xdg-cache"))
	var stderr bytes.Buffer
	var ctlOut, ctlErr controlCounter
	cmd.Stdout = &ctlOut
	if slices.Contains(args, "--json") {
		cmd.Stdout = io.Discard
	}
	var stdout bytes.Buffer // a scenario's, for its check
	if j.hooks != nil {
		cmd.Stdout = io.MultiWriter(&stdout, &ctlOut)
	}
	cmd.Stderr = io.MultiWriter(&stderr, &ctlErr)
	if j.stdin != "" {
		f, err := os.Open(filepath.Join(dir, j.stdin))
		if err != nil {
			fail(err)
		}
		defer f.Close()
		cmd.Stdin = f
	}
	start := time.Now()
	runWithHooks(cmd, j.hooks, dir, &stdout)
	r := result{job: j, wall: time.Since(start), status: -1, lines: bytes.Count(stderr.Bytes(), []byte("\n")),
		requests: requests.Load(), ctl: ctlOut.n + ctlErr.n}
	if ps := cmd.ProcessState; ps != nil {
		r.status = ps.ExitCode()
	}
	if b, err := os.ReadFile(rssFile); err == nil {
		// "Command exited with non-zero status N" or "Command terminated
		// by signal N" precede the figure.
		f := strings.Fields(string(b))
		if len(f) >= 3 {
			var user, sys float64
			fmt.Sscan(f[len(f)-3], &user)
			fmt.Sscan(f[len(f)-2], &sys)
			fmt.Sscan(f[len(f)-1], &r.rss)
			r.cpu = time.Duration((user + sys) * float64(time.Second))
		}
		if bytes.Contains(b, []byte("terminated by signal")) {
			r.status = -1
		}
	}
	switch {
	case bytes.Contains(stderr.Bytes(), []byte("panic:")) || bytes.Contains(stderr.Bytes(), []byte("goroutine ")):
		r.what = "panic"
	case r.status < 0 || (r.status > 2 && (j.hooks == nil || r.status != 128+int(j.hooks.signal))):
		r.what = "killed"
	case r.wall > maxWall:
		r.what = "slow"
	case r.rss > maxRSS:
		r.what = "big"
	case r.lines > maxWarnings:
		r.what = "flood"
	case r.ctl > 0:
		r.what = "ctl"
	}
	if j.hooks != nil && j.hooks.check != nil {
		if r.wrong = j.hooks.check(dir, &r, stdout.Bytes(), stderr.Bytes()); r.wrong != "" && r.what == "" {
			r.what = "wrong"
		}
	}
	if r.what != "" && c.keep != "" {
		os.MkdirAll(c.keep, 0o755)
		keep := filepath.Join(c.keep, strings.NewReplacer("/", "_", "#", ".", " ", "_").Replace(j.kind+"-"+j.name)+"."+r.what)
		if j.input != nil {
			os.WriteFile(keep, j.input, 0o644)
		}
		os.WriteFile(keep+".stderr", stderr.Bytes(), 0o644)
	}
	r.files, r.input = nil, nil
	return r
}

// report prints, per kind, the runs and the flagged ones, the worst time
// and peak RSS and the run they came from.
func report(results []result) {
	type tally struct {
		runs, panics, slow, big, killed int
		flood, lines, slowCPU, ctl      int
		wrong                           int
		cpu                             time.Duration
		cpuOf                           string
		wall                            time.Duration
		wallOf                          string
		rss                             int64
		rssOf                           string
	}
	kinds := map[string]*tally{}
	var order []string
	total := &tally{}
	for _, r := range results {
		t := kinds[r.kind]
		if t == nil {
			t = &tally{}
			kinds[r.kind] = t
			order = append(order, r.kind)
		}
		for _, t := range []*tally{t, total} {
			if r.kind == "server-defaults" && t == total {
				continue
			}
			t.runs++
			// A run is counted under every bound it breaks (what names the first).
			switch r.what {
			case "panic":
				t.panics++
			case "killed":
				t.killed++
			}
			if r.wall > maxWall {
				t.slow++
			}
			if r.rss > maxRSS {
				t.big++
			}
			if r.lines > maxWarnings {
				t.flood++
			}
			if r.ctl > 0 {
				t.ctl++
			}
			if r.wrong != "" {
				t.wrong++
			}
			t.lines = max(t.lines, r.lines)
			if r.wall > t.wall {
				t.wall, t.wallOf = r.wall, r.name
			}
			if r.cpu > maxWall {
				t.slowCPU++
			}
			if r.cpu > t.cpu {
				t.cpu, t.cpuOf = r.cpu, r.name
			}
			if r.rss > t.rss {
				t.rss, t.rssOf = r.rss, r.name
			}
		}
	}
	print := func(name string, t *tally) {
		fmt.Printf("%-16s %5d runs: %d panics, %d killed, %d over %v (%d over %v of CPU), %d over %d MB, %d over %d stderr lines, "+
			"%d with raw control bytes, %d with a wrong outcome; slowest %v (%s), most CPU %v (%s), largest %d KiB (%s), most stderr lines %d\n",
			name, t.runs, t.panics, t.killed, t.slow, maxWall, t.slowCPU, maxWall, t.big, maxRSS>>10, t.flood, maxWarnings, t.ctl, t.wrong,
			t.wall.Round(time.Millisecond), t.wallOf, t.cpu.Round(time.Millisecond), t.cpuOf, t.rss, t.rssOf, t.lines)
	}
	for _, k := range order {
		print(k, kinds[k])
	}
	print("total", total)
	fmt.Println("(total leaves out server-defaults)")
}

// controlCounter counts the raw control bytes written through it: C0
// controls other than line feed and tab (ESC, BEL, CR, BS, ...), DEL, and
// C1 controls (U+0080 to U+009F, UTF-8 0xC2 0x80-0x9F). Every text output
// must escape them (internal/textsafe). The JSON report is not counted: it
// keeps names exact, and JSON escapes C0 controls itself.
type controlCounter struct {
	n    int64
	last byte // the previous write's last byte, for a C1 pair split over writes
}

func (c *controlCounter) Write(p []byte) (int, error) {
	prev := c.last
	for _, b := range p {
		switch {
		case b < 0x20 && b != '\n' && b != '\t', b == 0x7f:
			c.n++
		case prev == 0xc2 && b >= 0x80 && b <= 0x9f:
			c.n++
		}
		prev = b
	}
	c.last = prev
	return len(p), nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "campaign:", err)
	os.Exit(1)
}
