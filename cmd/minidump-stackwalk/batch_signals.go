package main

// Batch runs stopped early: by SIGINT, SIGTERM, or SIGPIPE (stdout closed,
// as by "batch ... | head -1"). The run stops taking inputs, gives those
// in flight a short grace, writes the summary and HTML report of what was
// done, removes its temporary files from --output-dir and exits with
// 128 + the signal's number (docs/batch.md).

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/atomicfile"
)

// stopGrace is how long a stopped run waits for the inputs in flight
// before it writes its reports without them.
const stopGrace = 2 * time.Second

// stopSignals are the signals that stop a batch run.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE}

// notifyStop returns the channel the stop signals arrive on, and the
// function that stops listening. While it listens, a write to a closed
// stdout fails with EPIPE instead of killing the process.
func notifyStop() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, stopSignals...)
	return ch, func() { signal.Stop(ch) }
}

// inputQueue hands a run's inputs to its workers. A worker takes the next
// one itself (an atomic counter) rather than from a goroutine through an
// unbuffered channel: that hand-off woke the feeding goroutine for every
// dump, and a worker done with its dump often waited, its CPU idle, for
// the feeder to be scheduled (issue 29: -j 2 kept its second CPU busy
// only 83% of the time).
type inputQueue struct {
	paths   []string
	next    atomic.Int64
	stopped atomic.Bool
	// taken is closed when the last input has been taken, where the
	// feeding goroutine used to return: from then on a signal no longer
	// stops the run (the inputs in flight finish).
	taken     chan struct{}
	takenOnce sync.Once
	// broken is closed when stdout's reader has gone: a worker then stops
	// taking inputs at once, not only when feed is next scheduled (in
	// between, a worker on fast inputs took every one of them).
	broken <-chan struct{}
}

func newInputQueue(paths []string, broken <-chan struct{}) *inputQueue {
	q := &inputQueue{paths: paths, taken: make(chan struct{}), broken: broken}
	if len(paths) == 0 {
		q.takenOnce.Do(func() { close(q.taken) })
	}
	return q
}

// take returns the next input; false when there is none left or the run
// was stopped.
func (q *inputQueue) take() (string, bool) {
	if q.stopped.Load() {
		return "", false
	}
	select {
	case <-q.broken:
		return "", false
	default:
	}
	i := q.next.Add(1) - 1
	if i >= int64(len(q.paths)) {
		return "", false
	}
	if i == int64(len(q.paths))-1 {
		q.takenOnce.Do(func() { close(q.taken) })
	}
	return q.paths[i], true
}

// feed waits until the workers have taken every input or the run is
// stopped by a signal or a closed stdout, and then stops q; it returns
// what stopped it, nil when nothing.
func (r *batchRun) feed(q *inputQueue) os.Signal {
	select {
	case <-q.taken:
		return nil
	case sig := <-r.signals:
		q.stopped.Store(true)
		return sig
	case <-r.broken:
		q.stopped.Store(true)
		return syscall.SIGPIPE
	}
}

// wait waits for the workers; after a stop, for stopGrace at most, or
// until a second signal.
func (r *batchRun) wait(wg *sync.WaitGroup, stopped os.Signal) {
	if stopped == nil {
		wg.Wait()
		return
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-r.signals:
	}
}

// stopStatus reports a stop on stderr and returns its exit status: 128 +
// the signal's number, as a shell reports a process a signal ended.
func (r *batchRun) stopStatus(sig os.Signal, done, total int) int {
	fmt.Fprintf(r.stderr, "minidump-stackwalk: batch: stopped by %v after %d of %d inputs; the summary and report cover those\n",
		sig, done, total)
	if s, ok := sig.(syscall.Signal); ok {
		return exitSignal + int(s)
	}
	return exitSignal + int(syscall.SIGTERM)
}

// noteWriteError records an error writing stdout; a closed pipe stops the
// run (nothing more can be written).
func (r *batchRun) noteWriteError(err error) {
	if errors.Is(err, syscall.EPIPE) && r.broken != nil {
		r.brokenOnce.Do(func() { close(r.broken) })
	}
}

// tempFiles are the temporary files a run has open in --output-dir, so
// that a stopped run (or one whose timed-out walks are still writing)
// removes them.
type tempFiles struct {
	mu    sync.Mutex
	names map[string]bool
}

func (t *tempFiles) add(name string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.names == nil {
		t.names = map[string]bool{}
	}
	t.names[name] = true
}

func (t *tempFiles) done(name string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.names, name)
}

// removeAll removes the temporary files still open.
func (t *tempFiles) removeAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for name := range t.names {
		os.Remove(name)
		delete(t.names, name)
	}
}

// writeFileAtomicIn is writeFileAtomic recording its temporary file in
// temps (nil: none) while it exists.
func writeFileAtomicIn(path string, temps *tempFiles, write func(w *os.File) error) error {
	f, err := atomicfile.Create(path) // mode 0666 less the umask, as os.Create
	if err != nil {
		return err
	}
	temps.add(f.Name())
	defer temps.done(f.Name())
	if err := write(f.File); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
