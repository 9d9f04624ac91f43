package symsrv

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// progressEvery is how often a download in progress is reported.
const progressEvery = 100 * time.Millisecond

// DefaultDownloadJobs is how many requests an Supplier makes at once.
const DefaultDownloadJobs = 4

// WithDownloadJobs bounds the requests the supplier has in flight at once,
// however many goroutines ask it for symbols (n < 1 means 1). Prefetch
// uses as many workers.
func WithDownloadJobs(n int) Option {
	return func(s *Supplier) { s.jobs = make(chan struct{}, max(n, 1)) }
}

// acquireJob waits for a free request slot and returns its release.
func (s *Supplier) acquireJob() func() {
	s.jobs <- struct{}{}
	return func() { <-s.jobs }
}

// Prefetch looks up the symbols of mods concurrently, with as many
// workers as the supplier has request slots (WithDownloadJobs), and
// returns when all are settled. The answers are kept: a later Symbols
// call for one of these modules returns the same answer without a
// request, so a walk that follows gives what it would have given without
// the prefetch, only sooner.
func (s *Supplier) Prefetch(mods []symfile.ModuleKey) {
	work := make(chan symfile.ModuleKey)
	var wg sync.WaitGroup
	for range min(cap(s.jobs), len(mods)) {
		wg.Go(func() {
			for m := range work {
				s.Symbols(m)
			}
		})
	}
	seen := make(map[symfile.ModuleKey]bool, len(mods))
	for _, m := range mods {
		if !seen[m] {
			seen[m] = true
			work <- m
		}
	}
	close(work)
	wg.Wait()
}

// DownloadProgress describes a download in progress, for a progress
// display (WithProgress).
type DownloadProgress struct {
	URL      string
	File     string // the symbol file's name, as the cache names it
	Received int64  // bytes so far
	Size     int64  // the announced size, -1 when unknown
	Done     bool   // the last report of this download
}

// WithProgress makes the supplier report each download's progress to fn,
// from the goroutine reading it: at the start, as bytes arrive, and once
// with Done set at the end. fn must be quick and safe for concurrent use.
func WithProgress(fn func(DownloadProgress)) Option {
	return func(s *Supplier) { s.progress = fn }
}

// reportProgress starts the reports of one download, reading the count
// of received bytes as they arrive, and returns the function that ends
// them.
func (s *Supplier) reportProgress(target, local string, size int64, received *atomic.Int64) func() {
	if s.progress == nil {
		return func() {}
	}
	p := DownloadProgress{URL: target, File: filepath.Base(local), Size: size}
	s.progress(p)
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.Received = received.Load()
				s.progress(p)
			}
		}
	}()
	return func() {
		close(stop)
		<-finished
		p.Received, p.Done = received.Load(), true
		s.progress(p)
	}
}
