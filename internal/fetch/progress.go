package fetch

import (
	"path/filepath"
	"sync/atomic"
	"time"
)

// progressEvery is how often a download in progress is reported.
const progressEvery = 100 * time.Millisecond

// Progress describes a download in progress, for a progress display
// (Config.Progress).
type Progress struct {
	URL      string
	File     string // the file's name, as the cache names it
	Received int64  // bytes so far, as received (before any decoding)
	Size     int64  // the announced size, -1 when unknown
	Done     bool   // the last report of this download
}

// reportProgress starts the reports of one download, reading the count
// of received bytes as they arrive, and returns the function that ends
// them.
func (c *Client) reportProgress(target, local string, size int64, received *atomic.Int64) func() {
	if c.cfg.Progress == nil {
		return func() {}
	}
	p := Progress{URL: target, File: filepath.Base(local), Size: size}
	c.cfg.Progress(p)
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
				c.cfg.Progress(p)
			}
		}
	}()
	return func() {
		close(stop)
		<-finished
		p.Received, p.Done = received.Load(), true
		c.cfg.Progress(p)
	}
}
