package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"
)

// Defaults of a Config (docs/limits.md), suited to a CI step: a server
// that stalls or trickles costs one rate window, not minutes per file.
const (
	// DefaultTimeout bounds one request, body included.
	DefaultTimeout = 2 * time.Minute
	// DefaultTotal bounds all the requests of a Client.
	DefaultTotal = 5 * time.Minute
	// DefaultMinRate and DefaultRateWindow: a download that receives less
	// than DefaultMinRate bytes per second over a window (waiting for the
	// response headers included) is abandoned, and its server is not
	// asked again.
	DefaultMinRate    = 16 << 10
	DefaultRateWindow = 10 * time.Second
	// DefaultMaxSize bounds one file, after its Content-Encoding is
	// decoded: the per-file bound of every symbol file (docs/limits.md).
	DefaultMaxSize = 512 << 20
	// DefaultMaxExpansion bounds how many bytes a gzip-encoded body may
	// inflate to per byte received (beyond expansionSlack): a symbol file
	// or an ELF file compresses 3 to 10 times, a gzip bomb 1000 times.
	DefaultMaxExpansion = 64
	// DefaultJobs is how many requests a Client makes at once.
	DefaultJobs = 4
	// MaxRedirects bounds the redirects followed for one request.
	MaxRedirects = 10
)

// ErrTooLarge reports a file larger than the size bound, or a body whose
// encoding inflates it past DefaultMaxExpansion.
var ErrTooLarge = errors.New("file larger than the download limit")

// ErrServerDown reports a request not made, or cut short, because an
// earlier request to the same server found it unusable for the rest of
// the run: no response, too slow, an answer streamed past the download
// bound, or failures that outlasted the retries.
var ErrServerDown = errors.New("symbol server not used")

// ErrTooSlow reports a download abandoned because the server sent less
// than the minimum rate; the server is not asked again.
var ErrTooSlow = errors.New("symbol server too slow")

// ErrDownloadBudget reports a request not made, or cut short, because the
// Client's total download time was spent.
var ErrDownloadBudget = errors.New("symbol download time budget spent")

// ErrNotFound is the Err of an Error for a definite miss (HTTP 404, 410),
// which Get remembers in the Store.
var ErrNotFound = errors.New("not found")

// Error reports a failed download: a miss (Err is ErrNotFound), a network
// error, a timeout, an unexpected HTTP status, a file over the size bound
// or one that the caller's check refused.
type Error struct {
	URL    string // the URL requested
	Server string // the server's URL, as given
	Status int    // the HTTP status, 0 when no response was read
	// ServerDown is set when the server is not asked again after this
	// failure (no response, too slow, oversized, failing past the
	// retries), or was not asked because of such a failure earlier: a
	// caller may warn once per server.
	ServerDown bool
	Err        error
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("symbol download %s: HTTP status %d: %v", e.URL, e.Status, e.Err)
	}
	return fmt.Sprintf("symbol download %s: %v", e.URL, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Redirect is Get's error for a redirect not followed (Request.NoRedirect).
type Redirect struct {
	Location string
	Request  *url.URL // the URL that answered with the redirect
}

func (r *Redirect) Error() string { return "redirected to " + r.Location }

// Config is the bounds of a Client. New takes them as given: a zero
// Total, MinRate or Timeout turns that bound off.
type Config struct {
	Timeout    time.Duration // one request, body included
	Total      time.Duration // all requests, from New
	MinRate    int64         // bytes per second over RateWindow
	RateWindow time.Duration
	MaxSize    int64 // one file, decoded; <= 0: DefaultMaxSize
	// MaxExpansion bounds decoded bytes per received byte of a
	// gzip-encoded body; <= 0: DefaultMaxExpansion.
	MaxExpansion int64
	Retry        RetryPolicy
	Jobs         int // requests in flight; < 1: 1
	// Transport makes the requests; nil: the helper program
	// (HelperTransport), started at the first request.
	Transport Transport
	Progress  func(Progress) // nil: no reports
}

// DefaultConfig is the Config of the documented defaults.
func DefaultConfig() Config {
	return Config{Timeout: DefaultTimeout, Total: DefaultTotal, MinRate: DefaultMinRate, RateWindow: DefaultRateWindow,
		MaxSize: DefaultMaxSize, MaxExpansion: DefaultMaxExpansion, Retry: DefaultRetry, Jobs: DefaultJobs}
}

// Client downloads files under one set of bounds. It is safe for
// concurrent use; one Client serves a run, so that the total time, the
// request slots and the servers' state are the run's.
type Client struct {
	cfg      Config
	deadline time.Time // New + Total, zero when unbounded
	jobs     chan struct{}
	net      Transport

	mu      sync.Mutex
	servers map[string]*serverState
}

// New returns a Client with the bounds of cfg; the total time starts now.
func New(cfg Config) *Client {
	if cfg.MaxSize <= 0 {
		cfg.MaxSize = DefaultMaxSize
	}
	if cfg.MaxExpansion <= 0 {
		cfg.MaxExpansion = DefaultMaxExpansion
	}
	c := &Client{cfg: cfg, jobs: make(chan struct{}, max(cfg.Jobs, 1)), servers: map[string]*serverState{}}
	if cfg.Total > 0 {
		c.deadline = time.Now().Add(cfg.Total)
	}
	c.net = cfg.Transport
	if c.net == nil {
		c.net = &HelperTransport{}
	}
	return c
}

// Config returns the Client's bounds.
func (c *Client) Config() Config { return c.cfg }

// Jobs is the number of requests the Client makes at once.
func (c *Client) Jobs() int { return cap(c.jobs) }

// acquireJob waits for a free request slot and returns its release.
func (c *Client) acquireJob() func() {
	c.jobs <- struct{}{}
	return func() { <-c.jobs }
}

// serverState is what a Client learnt of one server. A server whose
// failure would cost as much again for each file (no response, too slow,
// an answer streamed past the download bound, failures outlasting the
// retries) is not asked again, so that a dump with hundreds of modules
// does not pay the bounds for each. A miss (404) says nothing against a
// server.
type serverState struct {
	mu   sync.Mutex
	down error // the failure that put the server down, nil while it is up
	// ctx is cancelled, with the failure as cause, when the server goes
	// down: it cuts short the requests to it still in flight.
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// server returns the state of the server at base.
func (c *Client) server(base string) *serverState {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.servers[base]
	if st == nil {
		st = &serverState{}
		st.ctx, st.cancel = context.WithCancelCause(context.Background())
		c.servers[base] = st
	}
	return st
}

// Down returns the failure that put the server at base down for the
// Client's run, or nil while it is asked.
func (c *Client) Down(base string) error { return c.server(base).downErr() }

// downErr returns the failure that put the server down, or nil.
func (st *serverState) downErr() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.down
}

// markDown records err as the failure that put the server down (the first
// one only) and cuts short its requests in flight.
func (st *serverState) markDown(err error) {
	st.mu.Lock()
	first := st.down == nil
	if first {
		st.down = err
	}
	st.mu.Unlock()
	if first {
		st.cancel(fmt.Errorf("%w: cut short after another request failed: %w", ErrServerDown, err))
	}
}

// budgetSpent reports whether a request with the given deadline failed
// because the total budget, not the server, ended it.
func (c *Client) budgetSpent(deadline time.Time) bool {
	return !c.deadline.IsZero() && deadline.Equal(c.deadline) && !time.Now().Before(c.deadline)
}

// isRedirect reports whether an HTTP status is a redirect.
func isRedirect(code int) bool {
	switch code {
	case 301, 302, 303, 307, 308: // moved, found, see other, temporary and permanent redirects
		return true
	}
	return false
}
