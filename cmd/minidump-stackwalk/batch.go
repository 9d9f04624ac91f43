package main

// The batch subcommand: many dumps in one process (docs/batch.md).
// batch_inputs.go finds the inputs, batch_adapter.go processes one,
// batch_progress.go shows progress; triage/... holds the signatures, the
// stack depot, the summary, the HTML report and the symbol cache.

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/mapfault"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/depot"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/htmlreport"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/signature"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/symcache"
)

// batchFlags are the batch subcommand's own flags; the symbol flags are
// the single-dump mode's, in o.
type batchFlags struct {
	o            options
	symbolsPaths []string
	jobs         int
	cacheBytes   int64
	timeout      time.Duration
	nul          bool
	outputDir    string
	summaryFile  string
	htmlFile     string
	rulesFile    string
	groupingFile string // --grouping-rules (sigrules.go)
	shard        string
	examples     int
	top          int
	progress     string
	ci           ciFlags // --format, --baseline, --fail-on (ciformats.go)

	shardIndex, shardCount int
	rules                  *signature.Rules
	commandLine            []string // for the report's run information
}

// defaultSymbolCacheBytes bounds the shared symbol cache: enough for the
// symbol files of a large program's main libraries.
const defaultSymbolCacheBytes = 2 << 30

func (b *batchFlags) addFlags(fs *pflag.FlagSet) {
	fs.SortFlags = false
	fs.IntVarP(&b.jobs, "jobs", "j", runtime.NumCPU(), "dumps processed at once")
	addStringList(fs, &b.symbolsPaths, "symbols-path", "a symbol directory or .sym file (repeatable); http(s) URLs name symbol servers")
	fs.Int64Var(&b.cacheBytes, "symbol-cache-bytes", defaultSymbolCacheBytes,
		"bound on the symbol files kept in memory between dumps (least recently used evicted first)")
	fs.DurationVar(&b.timeout, "timeout", time.Minute, "time limit per dump, for example 30s; 0: none")
	fs.BoolVarP(&b.nul, "null", "0", false, "paths read from - are NUL-separated, not one per line")
	fs.StringVar(&b.outputDir, "output-dir", "", "also write each dump's full JSON report (rust-minidump schema) into `DIR`")
	fs.StringVar(&b.summaryFile, "summary", "", "write the JSON summary (groups by signature) to `FILE`")
	fs.StringVar(&b.htmlFile, "html", "", "write a self-contained HTML report to `FILE`")
	fs.StringVar(&b.rulesFile, "signature-rules", "", "read the signature rules from `FILE` instead of the built-in ones\n(--print-signature-rules prints those)")
	fs.StringVar(&b.groupingFile, "grouping-rules", "", groupingRulesUsage)
	fs.StringVar(&b.shard, "shard", "", "process only shard `I/N` of the inputs (I from 0 to N-1, by a hash of the path)")
	fs.IntVar(&b.examples, "examples", summary.DefaultExamples, "example dumps kept per signature in the summary")
	fs.IntVar(&b.top, "top", 20, "signatures in the table printed on stderr at the end")
	fs.StringVar(&b.progress, "progress", "auto", "progress on stderr: auto (when stderr is a terminal), always, never")
	fs.StringVar(&b.o.sysroot, "sysroot", "", "for ELF cores: read the module files they name under `DIR`")
	fs.BoolVar(&b.o.breakpadCompat, "breakpad-compat", false, "walk as Breakpad does, including its known mistakes")
	fs.BoolVar(&b.o.noDemangle, "no-demangle", false, "keep mangled C++ and Rust names")
	b.o.symbolServer.addFlags(fs)
	b.o.limits.addFlags(fs)    // the per-dump budgets of the single-dump mode (limits.go)
	b.o.index.addFlags(fs)     // the persistent symbol index (index.go)
	b.o.debuginfo.addFlags(fs) // symbols from the modules' ELF files (debuginfo.go)
	b.ci.addFlags(fs)          // CI formats (ciformats.go)
}

// check validates the flags; an error is a usage error.
func (b *batchFlags) check(stderr io.Writer) error {
	b.o.symbolPaths = append([]string(nil), b.symbolsPaths...)
	if err := b.o.check(); err != nil {
		return err
	}
	if b.jobs < 1 {
		return fmt.Errorf("-j %d: want at least 1", b.jobs)
	}
	if b.timeout < 0 {
		return fmt.Errorf("--timeout %v: want a positive duration, or 0 for none", b.timeout)
	}
	if b.examples < 1 {
		return fmt.Errorf("--examples %d: want at least 1", b.examples)
	}
	switch b.progress {
	case "auto", "always", "never":
	default:
		return fmt.Errorf("--progress %q: want auto, always or never", b.progress)
	}
	b.shardIndex, b.shardCount = 0, 1
	if b.shard != "" {
		i, n, ok := parseShard(b.shard)
		if !ok {
			return fmt.Errorf("--shard %q: want I/N with 0 <= I < N", b.shard)
		}
		b.shardIndex, b.shardCount = i, n
	}
	var err error
	if b.rules, err = loadSignatureRules(b.rulesFile, b.groupingFile); err != nil { // sigrules.go
		return err
	}
	if err := b.ci.check(); err != nil {
		return err
	}
	if b.outputDir != "" {
		if err := os.MkdirAll(b.outputDir, 0o755); err != nil {
			return fmt.Errorf("--output-dir: %w", err)
		}
	}
	return nil
}

func parseShard(s string) (i, n int, ok bool) {
	a, c, found := strings.Cut(s, "/")
	if !found {
		return 0, 0, false
	}
	if _, err := fmt.Sscanf(a+" "+c, "%d %d", &i, &n); err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, false
	}
	return i, n, true
}

// inShard reports whether path belongs to shard i of n: FNV-1a of the path,
// so every process agrees without talking to the others.
func inShard(path string, i, n int) bool {
	if n <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(path))
	return h.Sum64()%uint64(n) == uint64(i)
}

// newBatchCommand builds the batch subcommand; *status receives the exit
// status.
func newBatchCommand(stdin io.Reader, stdout, stderr io.Writer, status *int) *cobra.Command {
	b := &batchFlags{}
	var printRules bool
	cmd := &cobra.Command{
		Use:   "batch [flags] PATH...",
		Short: "Process many dumps in one process: JSON Lines, crash signatures, summaries",
		Long: `batch processes many dumps, ELF cores and microdumps in one process and writes one
JSON object per input on stdout as each finishes (docs/batch.md). A PATH may be a
file, a directory (searched recursively; dumps are recognised by their content),
or - to read paths from stdin, one per line (NUL-separated with -0).

Each crash gets a signature, as crash-report servers make them, and its stack a
stack_id; --summary and --html group the crashes by signature, and a table of the
top signatures is printed on stderr at the end. --shard I/N and "batch merge"
split a run across processes or machines (docs/scaling.md).

A directory scan follows symbolic links to files, not to directories (those are
reported and skipped), and passes over files that are not dumps (counted in the
summary's "skipped"). A symbol file or a directory of symbol files given as a
PATH is a usage error: symbol paths go to --symbols-path.

Exit status: 0 when every input found was processed in full and nothing was
skipped for an error; 1 when an input was not processed in full, no input was
found, or a path was skipped for an error (an unreadable directory, a link to a
directory, a directory without a dump); 2 on a usage error; 3 when some input met an internal
error (a bug). With --fail-on new or any, a new (not in --baseline) or any crash also gives 1
(docs/ci.md).`,
		Args:          cobra.ArbitraryArgs, // PATHs; "merge" is the subcommand
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if printRules {
				_, err := stdout.Write(signature.DefaultRulesText())
				return err
			}
			if len(args) == 0 {
				return usageError{errors.New("batch: no PATH given")}
			}
			if err := b.check(stderr); err != nil {
				return usageError{err}
			}
			b.commandLine = commandLine(cmd.Flags(), args)
			defer b.o.index.wait() // the symbol indexes still being written (index.go)
			*status = runBatch(b, args, stdin, stdout, stderr)
			return nil
		},
	}
	b.addFlags(cmd.Flags())
	cmd.Flags().BoolVar(&printRules, "print-signature-rules", false, "print the built-in signature rules and exit")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	cmd.AddCommand(newMergeCommand(stdout, stderr, status))
	return cmd
}

// batchRun is the state of one run.
type batchRun struct {
	flags   *batchFlags
	args    []string        // the PATHs given
	cache   *symcache.Cache // nil without symbol paths
	builder *summary.Builder
	stderr  io.Writer
	// grace is how long a timed-out dump's cancelled work is waited for
	// (timeoutGrace; 0 in tests that hang on purpose).
	grace time.Duration
	gc    *gcTuner // the collector's GOGC while the run lasts
	// process is processBatchInput; tests replace it.
	process func(o *options, path string, sup symfile.Supplier, jsonOut io.Writer) triage.Result

	outMu sync.Mutex
	out   io.Writer
	line  []byte // the JSON line being written, under outMu
	err   error  // first error writing out

	// signals stop the run (batch_signals.go); broken is closed when
	// stdout is a closed pipe; temps are the --output-dir temporaries.
	signals    <-chan os.Signal
	broken     chan struct{}
	brokenOnce sync.Once
	temps      tempFiles
}

func runBatch(b *batchFlags, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	signals, stop := notifyStop() // batch_signals.go
	defer stop()
	return runBatchWith(b, args, stdin, stdout, stderr, signals)
}

// runBatchWith is runBatch stopped by what arrives on signals.
func runBatchWith(b *batchFlags, args []string, stdin io.Reader, stdout, stderr io.Writer, signals <-chan os.Signal) int {
	r := &batchRun{flags: b, builder: summary.NewBuilder(b.examples), stderr: stderr, out: b.ci.jsonLines(stdout), process: processBatchInput,
		signals: signals, broken: make(chan struct{}), grace: timeoutGrace}
	// Each worker downloads one file at a time: -j bounds the requests
	// of the run's one download client (options.downloads).
	b.o.symbolServer.jobs = b.jobs
	if load := newSymbolLoader(&b.o, stderr); load != nil {
		r.cache = symcache.NewContext(load, b.cacheBytes)
	}
	mine := func(p string) bool { return inShard(p, b.shardIndex, b.shardCount) }
	scan, err := findInputs(args, stdin, b.nul, b.jobs, mine, stderr) // batch_inputs.go
	if err != nil {
		logf(stderr, "minidump-stackwalk: %v\n", err)
		if errors.As(err, new(usageError)) {
			fmt.Fprintf(stderr, "Run 'minidump-stackwalk batch --help' for usage.\n")
			return exitUsage
		}
		return exitDump
	}
	for reason, n := range scan.skipped {
		r.builder.AddSkipped(reason, n)
	}
	var shard []string
	for _, p := range scan.paths {
		if mine(p) {
			shard = append(shard, p)
		}
	}
	r.args = args
	status := r.run(shard)
	switch {
	case len(scan.paths) == 0:
		fmt.Fprintf(stderr, "minidump-stackwalk: batch: no input found in %s\n", textsafe.Escape(strings.Join(args, " ")))
		status = max(status, exitDump)
	case scan.problems > 0:
		status = max(status, exitDump)
	}
	return status
}

// run processes paths with the run's workers and writes the outputs.
func (r *batchRun) run(paths []string) int {
	prog := newProgress(r.stderr, len(paths), r.flags.progress)
	r.gc = newGCTuner() // batch_gc.go
	defer r.gc.restore()
	q := newInputQueue(paths, r.broken) // batch_signals.go
	var wg sync.WaitGroup
	for range min(r.flags.jobs, max(len(paths), 1)) {
		wg.Add(1)
		go r.work(q, &wg, prog)
	}
	stopped := r.feed(q) // nil, or the signal that stopped the run (batch_signals.go)
	r.wait(&wg, stopped)
	prog.finish()
	defer r.temps.removeAll()

	status := exitOK
	s := r.builder.Summary()
	s.Run = newRun(r.flags.commandLine, r.args, r.flags.o.symbolPaths, r.flags.outputDir) // batch_html.go
	if s.OK != s.Inputs {
		status = exitDump
	}
	if s.Statuses[triage.StatusInternalError] > 0 {
		status = exitInternal // a bug, whatever else happened
	}
	if r.err != nil {
		fmt.Fprintf(r.stderr, "minidump-stackwalk: batch: writing output: %v\n", r.err)
		status = exitDump
	}
	if err := r.writeReports(s); err != nil {
		fmt.Fprintf(r.stderr, "minidump-stackwalk: batch: %v\n", err)
		status = exitDump
	}
	status = max(status, r.flags.ci.finish(r.stderr))
	if stopped != nil {
		status = r.stopStatus(stopped, s.Inputs, len(paths))
	}
	summary.WriteTable(r.stderr, s, r.flags.top)
	return status
}

// writeReports writes --summary and --html.
func (r *batchRun) writeReports(s *summary.Summary) error {
	return writeSummaryFiles(s, r.flags.summaryFile, r.flags.htmlFile, htmlOptions(r.flags.htmlFile, r.flags.outputDir))
}

// writeSummaryFiles writes s as JSON to summaryFile and as HTML to
// htmlFile, each skipped when "".
func writeSummaryFiles(s *summary.Summary, summaryFile, htmlFile string, opts htmlreport.Options) error {
	if summaryFile != "" {
		if err := writeFileAtomic(summaryFile, func(w io.Writer) error { return summary.Write(w, s) }); err != nil {
			return fmt.Errorf("--summary: %w", err)
		}
	}
	if htmlFile != "" {
		if err := writeFileAtomic(htmlFile, func(w io.Writer) error { return htmlreport.Write(w, s, opts) }); err != nil {
			return fmt.Errorf("--html: %w", err)
		}
	}
	return nil
}

// writeFileAtomic writes a file through a temporary file renamed into
// place, so that a reader never sees half of it; its mode is 0666 less the
// umask (internal/atomicfile).
func writeFileAtomic(path string, write func(io.Writer) error) error {
	return writeFileAtomicIn(path, nil, func(f *os.File) error { return write(f) })
}

// timeoutGrace is how long a dump past --timeout is waited for once its
// walks are cancelled; parts that do not stop at once (a symbol file being
// indexed, a download within its own bounds) may take that long.
const timeoutGrace = 10 * time.Second

// work is a worker: it processes the inputs of q in its own goroutine
// and writes their outputs, until q has none left or is stopped, or its
// input outlives --timeout and its grace (processOne): then a new worker
// has taken its place in wg and it ends once its input returns, without
// wg.Done.
func (r *batchRun) work(q *inputQueue, wg *sync.WaitGroup, prog *progress) {
	buf := new(dumpBuffer) // this goroutine's: a stuck input keeps its own
	yield := batchYields(r.flags.jobs)
	for p, ok := q.take(); ok; p, ok = q.take() {
		res, ok := r.processOne(p, buf, func(res triage.Result) {
			r.finish(&res, prog)
			go r.work(q, wg, prog) // in the stuck worker's place in wg
		})
		if !ok {
			return
		}
		r.finish(&res, prog)
		if yield {
			runtime.Gosched() // batchYields
		}
	}
	wg.Done()
}

// batchYields reports whether a batch worker yields the CPU after each
// dump: when the run has as many workers as Ps. Every P then runs a worker
// that never blocks, and a collection's mark worker, due a share of the
// CPUs once a cycle starts, only ran when the system monitor preempted a
// worker (every 10 ms): at -j 2 a mark phase of 2-3 ms of work lasted
// 15-22 ms, the write barrier on and the workers' allocations assisting
// all the while (issue 29; gctrace's assist time 7-73 ms a run before,
// 2-7 ms after, docs/performance.md). A dump's end is a natural point to give
// the mark worker its turn; when nothing else is runnable Gosched returns
// at once. With fewer workers than Ps the mark worker has an idle P, and a
// yield would only wake an idle thread and move the worker between CPUs.
func batchYields(jobs int) bool { return jobs >= runtime.GOMAXPROCS(0) }

// finish writes the outputs of an input's result.
func (r *batchRun) finish(res *triage.Result, prog *progress) {
	r.builder.Add(res)
	r.flags.ci.add(res)
	r.emit(res)
	r.gc.done()
	prog.done(res.OK())
	if !res.OK() {
		prog.println(fmt.Sprintf("minidump-stackwalk: %s: %s: %s", textsafe.Escape(res.Path), res.Status, textsafe.Escape(firstLine(res.Error))))
	}
}

// The states of an input in processOne: being processed, past --timeout
// (its walks cancelled), done, or given up past the grace.
const (
	inputRunning int32 = iota
	inputLate
	inputDone
	inputAbandoned
)

// processOne processes one input in the caller's goroutine, within the
// time limit, turning a panic into an internal_error result, and adds its
// signature and stack id. Past --timeout the input's walks are cancelled
// and it is waited for (r.grace at most, so that -j bounds the work and
// memory in flight: a timed-out dump must not walk on beside the next
// ones; its symbol loads and downloads stop with it, through the
// session's context), then reported as timeout. An input still running
// after the grace is given up: abandon gets its timeout result from the
// timer's goroutine, and processOne returns false when the input ends.
//
// The walk runs here rather than in a goroutine of its own, which cost a
// goroutine start, its stack's growth and two hand-offs between threads
// per dump (issue 29).
func (r *batchRun) processOne(path string, buf *dumpBuffer, abandon func(triage.Result)) (triage.Result, bool) {
	start := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var state atomic.Int32
	timedOut := func() triage.Result {
		return r.finishResult(triage.Result{Path: path, Status: triage.StatusTimeout,
			Error: fmt.Sprintf("not processed within --timeout %v", r.flags.timeout)}, path, start)
	}
	if r.flags.timeout > 0 {
		t := time.AfterFunc(r.flags.timeout, func() {
			if !state.CompareAndSwap(inputRunning, inputLate) {
				return
			}
			cancel()
			time.AfterFunc(r.grace, func() {
				if state.CompareAndSwap(inputLate, inputAbandoned) {
					abandon(timedOut())
				}
			})
		})
		defer t.Stop()
	}
	res := r.processGuarded(ctx, path, buf)
	if state.CompareAndSwap(inputRunning, inputDone) {
		return r.finishResult(res, path, start), true
	}
	if state.CompareAndSwap(inputLate, inputDone) {
		return timedOut(), true
	}
	return triage.Result{}, false // abandoned
}

// processGuarded processes path with the run's symbols, its walks stopped
// by ctx, reading it into buf, turning a panic into an internal_error
// result.
func (r *batchRun) processGuarded(ctx context.Context, path string, buf *dumpBuffer) (res triage.Result) {
	var sess *symcache.Session
	var sup symfile.Supplier
	if r.cache != nil {
		sess = r.cache.SessionContext(ctx)
		sup = sess
		// The session ends with the walk, not at the time limit: a walk
		// that goes on must keep its symbol files mapped.
		defer sess.Close()
	}
	o := r.flags.o // a copy: the walks of this dump stop with ctx
	o.walkCtx = ctx
	o.walkWorkers = batchWalkWorkers
	o.readBuf = buf
	defer mapfault.Enable()()
	defer func() {
		if v := recover(); v != nil {
			if e := mapfault.From(v); e != nil { // a mapped file truncated meanwhile
				if e.File == "" {
					e.File = path
				}
				if sess != nil {
					sess.Discard() // later dumps load the symbol files again
				}
				res = triage.Result{Path: path, Status: triage.StatusUnreadable, Error: e.Error()}
				return
			}
			res = triage.Result{Path: path, Status: triage.StatusInternalError,
				Error: fmt.Sprintf("panic: %v\n%s", v, firstFrames(debug.Stack()))}
		}
	}()
	return r.processWithReport(&o, path, sup)
}

// finishResult adds the signature, stack id and time of res, the result
// of the input path since start.
func (r *batchRun) finishResult(res triage.Result, path string, start time.Time) triage.Result {
	if res.Status == triage.StatusOK || res.Status == triage.StatusPartial {
		res.Signature = r.flags.rules.Generate(res.Frames, res.CrashingThread != nil)
		res.StackID = depot.ID(res.Frames)
	}
	if res.Frames == nil {
		res.Frames = []triage.Frame{}
	}
	res.Milliseconds = time.Since(start).Milliseconds()
	res.SetPath(path) // path_base64 when the path is not UTF-8
	return res
}

// batchWalkWorkers is how many threads of one dump are walked at once. A
// batch is parallel across dumps only (-j of them at once), each walked in
// its worker's goroutines. Walking a dump's threads in parallel beside
// other workers only added goroutines and waits for one another's symbol
// loads (issue 29: the processor's per-dump symbol cache was the mutex
// profile's first entry with -j 2), and with -j 1 it spread one dump over
// every CPU, so that a second worker gained 1.4x, not 2x: -j N is the CPUs
// a batch walks with.
const batchWalkWorkers = 1

// processWithReport processes path, writing its JSON report under
// --output-dir when given.
func (r *batchRun) processWithReport(o *options, path string, sup symfile.Supplier) triage.Result {
	if r.flags.outputDir == "" {
		return r.process(o, path, sup, nil)
	}
	var res triage.Result
	err := writeFileAtomicIn(filepath.Join(r.flags.outputDir, reportName(path)), &r.temps, func(w *os.File) error {
		res = r.process(o, path, sup, w)
		return nil
	})
	if err != nil && res.Error == "" {
		res.Error = fmt.Sprintf("--output-dir: %v", err)
	}
	return res
}

// reportName is the file name of a dump's JSON report: its base name and a
// hash of its whole path, so that equal base names do not collide and no
// name leaves the output directory.
func reportName(path string) string {
	h := fnv.New32a()
	h.Write([]byte(path))
	base := strings.Map(func(c rune) rune {
		if c == '/' || c == '\\' || c == 0 {
			return '_'
		}
		return c
	}, filepath.Base(path))
	if len(base) > 100 {
		base = base[:100]
	}
	return fmt.Sprintf("%s-%08x.json", strings.TrimLeft(base, "."), h.Sum32())
}

// emit writes res as one JSON line (json.Marshal's bytes, without its
// reflection: triage.Result.AppendJSON), built in the run's one buffer.
func (r *batchRun) emit(res *triage.Result) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	r.line = append(res.AppendJSON(r.line[:0]), '\n')
	_, err := r.out.Write(r.line)
	if err != nil && r.err == nil {
		r.err = err
		r.noteWriteError(err) // a closed pipe stops the run (batch_signals.go)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// firstFrames keeps the top of a goroutine stack trace for an
// internal_error's text.
func firstFrames(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	return strings.Join(lines[:min(len(lines), 16)], "\n")
}
