//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
)

// The scenario runs are issue 26's cases that need more than an input
// file: a file changed, replaced or removed around the run, a signal, a
// closed pipe. Each is one run of the tool, measured and flagged as the
// others are, and its expected outcome is checked (check): a run that
// ends otherwise is flagged "wrong".

// scenarioHooks are a job's steps beside writing its files and running.
type scenarioHooks struct {
	// setup prepares the job's directory before the run (it may run the
	// tool, to build an index).
	setup func(c *config, dir string) error
	// during runs beside the tool from its start; pid is the tool's
	// (not /usr/bin/time's); it returns when done or when stop is closed.
	during func(dir string, pid int, stop <-chan struct{})
	// headOnly closes the tool's standard output after its first line,
	// as "| head -1" does.
	headOnly bool
	// signal is the signal the run is expected to stop on: its exit status
	// 128 + signal is then not a kill.
	signal syscall.Signal
	// check says what is wrong with the run's outcome, or "".
	check func(dir string, r *result, stdout, stderr []byte) string
}

// scenarioSym is a symbol file of 2000 functions for the module of
// hostile.DumpForSymbols(scenarioSym()), between 10,000 FILE records before
// and after (about 700 KiB): the functions a walk of that dump reads lie
// in the middle of the file, far from the head and tail a content check
// might sample.
func scenarioSym() []byte {
	var b bytes.Buffer
	b.WriteString("MODULE windows x86_64 5A9832E5287241C1838ED98914E9B7FF1 app.pdb\n")
	for i := range 10000 {
		fmt.Fprintf(&b, "FILE %d /src/padding/file_%06d.c\n", i, i)
	}
	for i := range 2000 {
		fmt.Fprintf(&b, "FUNC %x 10 0 function_%06d\n", 0x1000+i*0x10, i)
	}
	for i := range 10000 {
		fmt.Fprintf(&b, "FILE %d /src/padding/file_%06d.c\n", 10000+i, 10000+i)
	}
	return b.Bytes()
}

const scenarioSymPath = "store/app.pdb/5A9832E5287241C1838ED98914E9B7FF1/app.sym"

func scenarioJobs() []job {
	sym := scenarioSym()
	dump, err := hostile.DumpForSymbols(sym)
	if err != nil {
		fail(err)
	}
	chain, err := hostile.FrameChain(100, 100_000)
	if err != nil {
		fail(err)
	}
	single := map[string][]byte{"in.dmp": dump, scenarioSymPath: sym}
	jobs := []job{
		truncatedJob("truncated while mapped, single run", single, []string{"in.dmp", "store"}),
		truncatedJob("truncated while mapped, batch of 100", copies(dump, sym, 100),
			[]string{"batch", "-j", "2", "--progress", "never", "--symbols-path", "store", "--summary", "summary.json", "dumps"}),
		batchTimeoutJob(dump, sym, chain),
		fifoIndexJob(single), fifoStoreJob(single), editedSymJob(single),
		linkedInputsJob(dump),
		stoppedBatchJob("batch | head -1 (SIGPIPE)", dump, sym, syscall.SIGPIPE),
		stoppedBatchJob("batch on SIGTERM", dump, sym, syscall.SIGTERM),
	}
	for i := range jobs {
		jobs[i].kind = "scenario"
	}
	return jobs
}

// copies is n copies of a dump under dumps/ and its symbol file in store.
func copies(dump, sym []byte, n int) map[string][]byte {
	files := map[string][]byte{scenarioSymPath: sym}
	for i := range n {
		files[fmt.Sprintf("dumps/%03d.dmp", i)] = dump
	}
	return files
}

// truncatedJob: while the tool runs, the dumps and the symbol file are cut
// to half and written back in a loop (issue 26, item 1: SIGBUS killed the
// process). The run must end with 0 or 1, no fatal error, and any failure
// must name the file that changed.
func truncatedJob(name string, files map[string][]byte, args []string) job {
	return job{name: name, files: files, args: args, hooks: &scenarioHooks{
		during: func(dir string, _ int, stop <-chan struct{}) {
			var paths []string
			for p := range files {
				paths = append(paths, filepath.Join(dir, p))
			}
			for {
				for _, p := range paths {
					select {
					case <-stop:
						return
					default:
					}
					data := files[relTo(dir, p)]
					os.Truncate(p, int64(len(data)/2))
					os.WriteFile(p, data, 0o644)
				}
			}
		},
		check: func(dir string, r *result, stdout, stderr []byte) string {
			if bytes.Contains(stderr, []byte("fatal error")) || r.status > 1 {
				return fmt.Sprintf("exit %d: %s", r.status, firstLine(stderr))
			}
			if args[0] == "batch" {
				if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
					return "no summary"
				}
			} else if r.status == 1 && !bytes.Contains(stderr, []byte("in.dmp")) && !bytes.Contains(stderr, []byte("app.sym")) {
				return "an error naming neither file: " + firstLine(stderr)
			}
			return ""
		},
	}}
}

func relTo(dir, p string) string {
	rel, _ := filepath.Rel(dir, p)
	return filepath.ToSlash(rel)
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return string(line)
}

// batchResults reads batch's JSON Lines: status by path.
func batchResults(stdout []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r struct{ Path, Status string }
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out[filepath.Base(r.Path)] = r.Status
		}
	}
	return out
}

// batchTimeoutJob: batch -j 1 --timeout 1s over 2 dumps of 100 threads
// sharing a 100k-frame chain and 4 normal dumps (issue 26, item 2: the
// timed-out walks ran on, and normal dumps timed out behind them). Every
// normal dump must be ok, every hostile one ok, timeout or partial (its
// stacks cut by the frame budget when the walk ends within the second:
// docs/batch.md), the summary written. No symbols: the normal dumps' walks are short, so that only a
// walk left running makes them time out.
func batchTimeoutJob(dump, sym, chain []byte) job {
	files := copies(dump, sym, 4)
	for i := range 2 {
		files[fmt.Sprintf("dumps/chain%d.dmp", i)] = chain
	}
	return job{name: "batch --timeout 1s over hostile dumps", files: files,
		args: []string{"batch", "-j", "1", "--timeout", "1s", "--progress", "never", "--summary", "summary.json", "dumps"},
		hooks: &scenarioHooks{check: func(dir string, r *result, stdout, stderr []byte) string {
			got := batchResults(stdout)
			if len(got) != len(files)-1 {
				return fmt.Sprintf("%d results for %d dumps", len(got), len(files)-1)
			}
			for p, status := range got {
				hostileDump := strings.HasPrefix(p, "chain")
				if status != "ok" && (!hostileDump || (status != "timeout" && status != "partial")) {
					return fmt.Sprintf("%s: %s", p, status)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
				return "no summary"
			}
			return ""
		}}}
}

// runTool runs the tool in dir for a scenario's setup.
func runTool(c *config, dir string, args ...string) ([]byte, error) {
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("setup run %v: %w", args, err)
	}
	return out, nil
}

// wantFunction checks a walk's output names the symbol file's function.
func wantFunction(name string) func(string, *result, []byte, []byte) string {
	return func(_ string, r *result, stdout, stderr []byte) string {
		if r.status != 0 {
			return fmt.Sprintf("exit %d: %s", r.status, firstLine(stderr))
		}
		if !bytes.Contains(stdout, []byte(name)) {
			return "no frame in " + name
		}
		return ""
	}
}

// fifoIndexJob: the index of the symbol file replaced by a FIFO (issue 26,
// item 10: opening it hung the run). The walk must finish with the
// function names, warning of the index.
func fifoIndexJob(files map[string][]byte) job {
	args := []string{"--index-dir", "idx", "in.dmp", "store"}
	want := wantFunction("function_000000")
	return job{name: "FIFO in the index directory", files: files, args: args, hooks: &scenarioHooks{
		setup: func(c *config, dir string) error {
			if _, err := runTool(c, dir, args...); err != nil {
				return err
			}
			idx, _ := filepath.Glob(filepath.Join(dir, "idx", "*"))
			if len(idx) == 0 {
				return fmt.Errorf("no index written")
			}
			for _, p := range idx {
				os.Remove(p)
				if err := syscall.Mkfifo(p, 0o644); err != nil {
					return err
				}
			}
			return nil
		},
		check: func(dir string, r *result, stdout, stderr []byte) string {
			if w := want(dir, r, stdout, stderr); w != "" {
				return w
			}
			if !bytes.Contains(stderr, []byte("not a regular file")) {
				return "no warning of the FIFO"
			}
			return ""
		},
	}}
}

// fifoStoreJob: the symbol file itself is a FIFO (issue 26, item 10). The
// walk must finish, exit 0, the module without symbols, and the lookup log
// (--verbose=debug) must say why the file was passed over.
func fifoStoreJob(files map[string][]byte) job {
	return job{name: "FIFO in the symbol store", files: map[string][]byte{"in.dmp": files["in.dmp"]},
		args: []string{"--verbose=debug", "in.dmp", "store"}, hooks: &scenarioHooks{
			setup: func(_ *config, dir string) error {
				p := filepath.Join(dir, scenarioSymPath)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return err
				}
				return syscall.Mkfifo(p, 0o644)
			},
			check: func(_ string, r *result, stdout, stderr []byte) string {
				if r.status != 0 {
					return fmt.Sprintf("exit %d: %s", r.status, firstLine(stderr))
				}
				if bytes.Contains(stdout, []byte("function_")) {
					return "symbols read from a FIFO"
				}
				if !bytes.Contains(stderr, []byte(`app.sym outcome="not a regular file"`)) {
					return "the symbol lookup log does not name the FIFO"
				}
				return ""
			},
		}}
}

// editedSymJob: the symbol file rewritten in place after it was indexed,
// with the same size and modification time, a record in its middle moved
// (issue 26, item 11: the stale index was served). The walk must name the
// moved function.
func editedSymJob(files map[string][]byte) job {
	args := []string{"--index-dir", "idx", "in.dmp", "store"}
	return job{name: ".sym edited in place, same size and mtime", files: files, args: args, hooks: &scenarioHooks{
		setup: func(c *config, dir string) error {
			if _, err := runTool(c, dir, args...); err != nil {
				return err
			}
			p := filepath.Join(dir, scenarioSymPath)
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			// The same size; the record of the function after the
			// first moves, so an index made before points at other bytes.
			edited := bytes.Replace(scenarioSym(), []byte("function_000000"), []byte("fn_000000"), 1)
			edited = bytes.Replace(edited, []byte("function_000001"), []byte("function_000001_moved"), 1)
			if err := os.WriteFile(p, edited, 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, fi.ModTime(), fi.ModTime())
		},
		check: wantFunction("function_000001_moved"),
	}}
}

// linkedInputsJob: batch over a directory holding a link to a dump, a
// dangling link, a link to a directory and a file of mode 0 (issue 26,
// item 15: they were passed over, "every input processed", exit 0). The
// link is followed, the dangling one unreadable, the directory link
// reported as skipped, exit 1.
func linkedInputsJob(dump []byte) job {
	return job{name: "batch over linked and unreadable inputs", files: map[string][]byte{"outside/real.dmp": dump, "dumps/mode0.dmp": dump},
		args: []string{"batch", "--progress", "never", "--summary", "summary.json", "dumps"},
		hooks: &scenarioHooks{
			setup: func(_ *config, dir string) error {
				d := filepath.Join(dir, "dumps")
				for _, err := range []error{
					os.Symlink(filepath.Join(dir, "outside", "real.dmp"), filepath.Join(d, "linked.dmp")),
					os.Symlink(filepath.Join(dir, "outside", "gone.dmp"), filepath.Join(d, "dangling.dmp")),
					os.Symlink(filepath.Join(dir, "outside"), filepath.Join(d, "dirlink")),
					os.Chmod(filepath.Join(d, "mode0.dmp"), 0),
				} {
					if err != nil {
						return err
					}
				}
				return nil
			},
			check: func(_ string, r *result, stdout, stderr []byte) string {
				got := batchResults(stdout)
				// Root reads a file of mode 0; others may not.
				mode0 := got["mode0.dmp"] == "ok" || (os.Geteuid() != 0 && got["mode0.dmp"] == "unreadable")
				if got["linked.dmp"] != "ok" || got["dangling.dmp"] != "unreadable" || !mode0 || len(got) != 3 {
					return fmt.Sprintf("results %v", got)
				}
				if r.status != 1 || !bytes.Contains(stderr, []byte("dirlink: symbolic link to a directory (skipped)")) {
					return fmt.Sprintf("exit %d, the directory link not reported", r.status)
				}
				return ""
			},
		}}
}

// stoppedBatchJob: batch over 300 dumps stopped by a closed standard
// output (SIGPIPE) or SIGTERM (issue 26, item 16: the summary and HTML
// were lost, temporaries left). The run must exit 128 + the signal with a
// summary of the dumps done (not all), the HTML report, and no temporary
// file in --output-dir.
func stoppedBatchJob(name string, dump, sym []byte, sig syscall.Signal) job {
	h := &scenarioHooks{headOnly: sig == syscall.SIGPIPE, signal: sig}
	if sig != syscall.SIGPIPE {
		h.during = func(dir string, pid int, stop <-chan struct{}) {
			// Once some reports are written.
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				if e, _ := os.ReadDir(filepath.Join(dir, "out")); len(e) >= 5 {
					syscall.Kill(pid, sig)
					return
				}
			}
		}
	}
	h.check = func(dir string, r *result, stdout, stderr []byte) string {
		if r.status != 128+int(sig) {
			return fmt.Sprintf("exit %d, want %d: %s", r.status, 128+int(sig), firstLine(stderr))
		}
		var s struct{ Inputs int }
		b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil || json.Unmarshal(b, &s) != nil || s.Inputs == 0 || s.Inputs >= 300 {
			return fmt.Sprintf("summary of %d inputs (%v), want some of 300", s.Inputs, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
			return "no HTML report"
		}
		entries, _ := os.ReadDir(filepath.Join(dir, "out"))
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				return "temporary file left: " + e.Name()
			}
		}
		return ""
	}
	return job{name: name, files: copies(dump, sym, 300), hooks: h,
		args: []string{"batch", "-j", "1", "--progress", "never", "--symbols-path", "store", "--summary", "summary.json",
			"--html", "report.html", "--output-dir", "out", "dumps"}}
}

// childOf returns the pid of /usr/bin/time's child, the tool, once it is
// started.
func childOf(pid int) int {
	for range 500 {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, _ := strconv.Atoi(f[0])
			return n
		}
		time.Sleep(2 * time.Millisecond)
	}
	return 0
}

// runWithHooks runs cmd (/usr/bin/time and the tool) with a scenario's
// hooks around it: its standard output cut after a line, its during step.
func runWithHooks(cmd *exec.Cmd, h *scenarioHooks, dir string, stdout *bytes.Buffer) {
	var pipeR, pipeW *os.File
	if h != nil && h.headOnly {
		var err error
		if pipeR, pipeW, err = os.Pipe(); err != nil {
			fail(err)
		}
		cmd.Stdout = pipeW
	}
	err := cmd.Start()
	if pipeW != nil {
		pipeW.Close()
	}
	if err != nil {
		if pipeR != nil {
			pipeR.Close()
		}
		return
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if pipeR != nil {
		wg.Go(func() {
			line, _ := bufio.NewReader(pipeR).ReadBytes('\n')
			stdout.Write(line)
			pipeR.Close()
		})
	}
	if h != nil && h.during != nil {
		wg.Go(func() { h.during(dir, childOf(cmd.Process.Pid), stop) })
	}
	_ = cmd.Wait()
	close(stop)
	wg.Wait()
}
