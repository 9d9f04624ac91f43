package symfile

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// progressEvery is how often a download in progress is reported.
const progressEvery = 100 * time.Millisecond

// DefaultDownloadJobs is how many requests an HTTPSupplier makes at once.
const DefaultDownloadJobs = 4

// WithDownloadJobs bounds the requests the supplier has in flight at once,
// however many goroutines ask it for symbols (n < 1 means 1). Prefetch
// uses as many workers.
func WithDownloadJobs(n int) HTTPOption {
	return func(s *HTTPSupplier) { s.jobs = make(chan struct{}, max(n, 1)) }
}

// acquireJob waits for a free request slot and returns its release.
func (s *HTTPSupplier) acquireJob() func() {
	s.jobs <- struct{}{}
	return func() { <-s.jobs }
}

// Prefetch looks up the symbols of mods concurrently, with as many
// workers as the supplier has request slots (WithDownloadJobs), and
// returns when all are settled. The answers are kept: a later Symbols
// call for one of these modules returns the same answer without a
// request, so a walk that follows gives what it would have given without
// the prefetch, only sooner.
func (s *HTTPSupplier) Prefetch(mods []ModuleKey) {
	work := make(chan ModuleKey)
	var wg sync.WaitGroup
	for range min(cap(s.jobs), len(mods)) {
		wg.Go(func() {
			for m := range work {
				s.Symbols(m)
			}
		})
	}
	seen := make(map[ModuleKey]bool, len(mods))
	for _, m := range mods {
		if !seen[m] {
			seen[m] = true
			work <- m
		}
	}
	close(work)
	wg.Wait()
}

// Prefetch prefetches, from the chain's symbol servers, the modules that
// no earlier supplier in the chain has (a local file that exists stops the
// search, as it would stop Symbols). Other suppliers are not asked.
func (c ChainSupplier) Prefetch(mods []ModuleKey) {
	for i, s := range c {
		hs, ok := s.(*HTTPSupplier)
		if !ok {
			continue
		}
		var need []ModuleKey
		for _, m := range mods {
			if !localHas(c[:i], m) {
				need = append(need, m)
			}
		}
		hs.Prefetch(need)
		return // later servers are asked by Symbols, for what this one lacks
	}
}

// localHas reports whether one of the directory suppliers has a file for
// m, by looking for it only (nothing is parsed).
func localHas(sups []Supplier, m ModuleKey) bool {
	for _, s := range sups {
		d, ok := s.(*DirSupplier)
		if !ok {
			return true // an unknown supplier may have it: do not prefetch
		}
		for _, root := range d.roots {
			st, err := os.Stat(root)
			switch {
			case err != nil:
			case !st.IsDir():
				if moduleLineMatches(root, m) {
					return true
				}
			default:
				for _, p := range candidatePaths(root, m) {
					if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
						return true
					}
				}
			}
		}
	}
	return false
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
func WithProgress(fn func(DownloadProgress)) HTTPOption {
	return func(s *HTTPSupplier) { s.progress = fn }
}

// reportProgress starts the reports of one download, reading the count
// of received bytes as they arrive, and returns the function that ends
// them.
func (s *HTTPSupplier) reportProgress(target, local string, size int64, received *atomic.Int64) func() {
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
