//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// catchSignals makes SIGINT and SIGTERM, while a single-dump run lasts,
// first wait for the symbol indexes being written (a partial index is
// never renamed into place, but an unwaited one is lost: the next run
// builds it again), then end the process by the same signal, as their
// default action would have. A second signal during the wait ends it at
// once. A signal the process was started ignoring (SIGINT of a shell's
// background job) stays ignored. It returns the function that stops
// catching them.
func (m *indexDirs) catchSignals() (stop func()) {
	var sigs []os.Signal
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) == 0 {
		return func() {} // and Notify without signals would relay every one
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done, finished := make(chan struct{}), make(chan struct{})
	reset := func(sig os.Signal) { signal.Reset(sig) }
	go func() {
		defer close(finished)
		waitThenRaise(ch, done, reset, m.wait, func(sig os.Signal) {
			s, _ := sig.(syscall.Signal)
			syscall.Kill(os.Getpid(), s)
			// The signal is delivered to some thread soon; until then this
			// goroutine holds stop (and so the command's exit) back. Should
			// it not end the process, the exit status still says why.
			time.Sleep(time.Second)
			os.Exit(exitSignal + int(s))
		})
	}()
	return func() {
		signal.Stop(ch)
		close(done)
		<-finished // a signal caught ends the process there, not an exit 0
	}
}
