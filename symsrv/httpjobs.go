package symsrv

import (
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// WithDownloadJobs bounds the requests the supplier has in flight at once,
// however many goroutines ask it for symbols (n < 1 means 1). Prefetch
// uses as many workers.
func WithDownloadJobs(n int) Option {
	return func(s *Supplier) { s.cfg.Jobs = max(n, 1) }
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
	for range min(s.dl.Jobs(), len(mods)) {
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
