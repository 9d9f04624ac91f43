package fetch

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// expansionSlack is what a gzip-encoded body may inflate to before
// MaxExpansion applies: the first bytes of a file (headers, zero padding)
// compress far better than the rest.
const expansionSlack = 16 << 20

// Request is one file to download.
type Request struct {
	// Ctx cancels the request (nil: never), as a timed-out dump of a
	// batch cancels its downloads; a request so cancelled says nothing
	// against its server.
	Ctx    context.Context
	Server string // the server's base URL, as given: its state is kept by it
	URL    string // the file's URL
	Store  *Store // the cache the file enters
	Local  string // where, in the Store's directory, the checked file is renamed
	// NoRedirect returns a redirect as a *Redirect instead of following it.
	NoRedirect bool
	// What names what the body must be, for errors ("a Breakpad symbol
	// file"); Heads are the bytes it may begin with (none: any), checked
	// before the body is written, so that an HTML page costs nothing.
	What  string
	Heads [][]byte
	// Check verifies the whole body, written to the partial file at path
	// (its module name, its build id...): an error keeps it out of the
	// cache and is Get's error, wrapped in an *Error.
	Check func(path string) error
}

// Get downloads r.URL within the Client's bounds and, once r.Check accepts
// it, renames it to r.Local. A passing failure (5xx, 429, a timeout, a
// reset connection) is retried under the Client's RetryPolicy; a definite
// miss (404, 410) is remembered in the Store. Errors are *Error (a miss:
// wrapping ErrNotFound) or *Redirect.
func (c *Client) Get(r Request) error {
	ctx := r.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	server := c.server(r.Server)
	var waited time.Duration
	for n := 1; ; n++ {
		a := c.attempt(ctx, server, &r)
		if a.miss {
			r.Store.RecordMiss(r.URL)
		}
		if !a.retry {
			return c.settle(server, r.Server, a, n)
		}
		d, ok := c.cfg.Retry.delay(n-1, a.after)
		if n > c.cfg.Retry.Retries || !ok || waited+d > c.cfg.Retry.MaxWait || (!c.deadline.IsZero() && time.Now().Add(d).After(c.deadline)) {
			a.hostile = true
			return c.settle(server, r.Server, a, n)
		}
		select { // the next attempt is not made if the server went down meanwhile
		case <-time.After(d):
		case <-server.ctx.Done():
		case <-ctx.Done():
		}
		waited += d
	}
}

// attemptResult is the outcome of one request.
type attemptResult struct {
	err   error
	miss  bool          // a definite "not found"
	retry bool          // transient: worth asking again
	after time.Duration // the server's Retry-After, 0 when none
	// hostile: a failure that would cost as much for each file (no
	// answer at all, below the minimum rate, an answer streamed past the
	// download bound, failing past the retries): it puts the server
	// down. wasDown: the server was down already (not asked, or cut
	// short).
	hostile, wasDown bool
}

// settle turns the last attempt's outcome into Get's error, putting the
// server down when it failed by itself.
func (c *Client) settle(server *serverState, base string, a attemptResult, attempts int) error {
	var de *Error
	if !errors.As(a.err, &de) {
		return a.err
	}
	if attempts > 1 {
		de.Err = fmt.Errorf("%w (%d attempts)", de.Err, attempts)
	}
	switch {
	case a.wasDown:
		de.ServerDown = true
	case a.hostile:
		de.ServerDown = true
		de.Err = fmt.Errorf("%w; %s not asked again in this run", de.Err, redacted(base))
		server.markDown(a.err)
	}
	return a.err
}

// redacted is a server's URL without its password, for messages.
func redacted(base string) string {
	if u, err := url.Parse(base); err == nil {
		return u.Redacted()
	}
	return base
}

// attempt makes one request for r.URL and, on 200, stores the body
// (store). It returns what came of it.
func (c *Client) attempt(parent context.Context, server *serverState, r *Request) (a attemptResult) {
	fail := func(status int, err error) error {
		return &Error{URL: r.URL, Server: r.Server, Status: status, Err: err}
	}
	if err := parent.Err(); err != nil {
		a.err = fail(0, context.Cause(parent))
		return a
	}
	if s, ok := c.net.(interface{ Start() error }); ok {
		s.Start() // the helper's start is not the server's time; RoundTrip reports its failure
	}
	deadline := time.Time{}
	if c.cfg.Timeout > 0 {
		deadline = time.Now().Add(c.cfg.Timeout)
	}
	if !c.deadline.IsZero() {
		if !time.Now().Before(c.deadline) {
			a.err = fail(0, fmt.Errorf("%w: not asked (%v in all)", ErrDownloadBudget, c.cfg.Total))
			return a
		}
		if deadline.IsZero() || c.deadline.Before(deadline) {
			deadline = c.deadline
		}
	}
	notAsked := func() bool {
		if downErr := server.downErr(); downErr != nil {
			a.err, a.wasDown = fail(0, fmt.Errorf("%w: not asked after an earlier failure: %w", ErrServerDown, downErr)), true
			return true
		}
		return false
	}
	if notAsked() {
		return a
	}
	release := c.acquireJob()
	defer release()
	if notAsked() { // while this request waited for a slot
		return a
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	if !deadline.IsZero() {
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	ctx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	defer context.AfterFunc(server.ctx, func() { abort(context.Cause(server.ctx)) })()
	if _, err := url.Parse(r.URL); err != nil { // about this file, not the server
		a.err = fail(0, err)
		return a
	}
	var received atomic.Int64
	defer c.watchRate(&received, abort)()
	// failed classifies a network error: too slow, cut short because the
	// server went down or the caller gave up, out of budget, or (when
	// transient) worth a retry.
	failed := func(status int, err error, noResponse bool) attemptResult {
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, ErrTooSlow):
			return attemptResult{err: fail(status, cause), hostile: true}
		case errors.Is(cause, ErrServerDown):
			return attemptResult{err: fail(status, cause), wasDown: true}
		case parent.Err() != nil:
			return attemptResult{err: fail(status, context.Cause(parent))}
		case c.budgetSpent(deadline):
			return attemptResult{err: fail(status, fmt.Errorf("%w: %w", ErrDownloadBudget, err))}
		case errors.Is(err, ErrTooLarge):
			return attemptResult{err: fail(status, err), hostile: true}
		}
		return attemptResult{err: fail(status, err), retry: transient(err), hostile: noResponse && !transient(err)}
	}
	// Asked for explicitly, gzip is not decoded by the Transport but by
	// body, under the expansion bound.
	resp, err := c.net.RoundTrip(ctx, &HTTPRequest{URL: r.URL, NoRedirect: r.NoRedirect, AcceptGzip: true})
	if err != nil {
		if ne := (*NetError)(nil); errors.As(err, &ne) && ne.Redirect {
			// A redirect out of http(s) is about one file; a server that
			// redirects past the bound would do it for every file.
			a.err, a.hostile = fail(0, err), ne.Loop
			return a
		}
		return failed(0, err, true)
	}
	defer resp.Body.Close()
	if a, ok := c.refuse(resp, r, fail); ok {
		return a
	}
	done := c.reportProgress(r.URL, r.Local, resp.ContentLength, &received)
	defer done()
	body, err := c.body(ctx, resp, &received)
	if err != nil {
		if context.Cause(ctx) != nil { // cut short while reading a gzip header
			return failed(resp.StatusCode, err, false)
		}
		a.err = fail(resp.StatusCode, err)
		return a
	}
	// A server that answers 200 with an HTML page must not poison the cache.
	head, perr := body.Peek(headLen(r.Heads))
	if !startsWell(head, r.Heads) {
		if perr != nil && perr != io.EOF { // cut off, not a short page
			return failed(resp.StatusCode, perr, false)
		}
		a.err = fail(resp.StatusCode, errors.New("response is not "+r.What))
		return a
	}
	return c.store(body, r, resp.StatusCode, fail, failed)
}

// refuse returns the outcome of an answer whose body is not read: a miss,
// a redirect not followed, a failure worth a retry, a status other than
// 200, a file announced over the size bound; ok false for a body to read.
func (c *Client) refuse(resp *HTTPResponse, r *Request, fail func(int, error) error) (a attemptResult, ok bool) {
	switch code := resp.StatusCode; {
	case code == 404 || code == 410: // not found, gone
		a.err, a.miss = fail(code, ErrNotFound), true
	case r.NoRedirect && isRedirect(code):
		a.err = &Redirect{Location: resp.Location, Request: answerURL(resp.URL)}
	case code == 429 || code >= 500: // too many requests, server errors
		a.err, a.retry = fail(code, errors.New(resp.StatusText)), true
		a.after = retryAfter(resp.RetryAfter, time.Now())
	case code != 200:
		a.err = fail(code, errors.New(resp.StatusText))
	case resp.ContentLength > c.cfg.MaxSize:
		a.err = fail(code, fmt.Errorf("%w: Content-Length %d, limit %d", ErrTooLarge, resp.ContentLength, c.cfg.MaxSize))
	default:
		return a, false
	}
	return a, true
}

// body is the response's body as the file's bytes: every read fails once
// ctx is done, even where the HTTP client would still return what it has
// buffered; a gzip-encoded body is decoded within the expansion bound.
// received counts the bytes received (the rate floor's and progress's
// count).
func (c *Client) body(ctx context.Context, resp *HTTPResponse, received *atomic.Int64) (*bufio.Reader, error) {
	wire := &countingReader{r: resp.Body, n: received, ctx: ctx}
	switch enc := strings.ToLower(strings.TrimSpace(resp.ContentEncoding)); enc {
	case "", "identity":
		return bufio.NewReaderSize(wire, 64<<10), nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bufio.NewReaderSize(wire, 64<<10))
		if err != nil {
			return nil, fmt.Errorf("Content-Encoding %s: %w", enc, err)
		}
		return bufio.NewReaderSize(&inflateBound{r: zr, wire: received, ratio: c.cfg.MaxExpansion, ctx: ctx}, 64<<10), nil
	default:
		return nil, fmt.Errorf("Content-Encoding %q: only gzip was asked for", enc)
	}
}

// store writes a download's body into a partial file and, once it is
// whole and r.Check accepts it, renames it into the cache at r.Local.
func (c *Client) store(body io.Reader, r *Request, status int,
	fail func(int, error) error, failed func(int, error, bool) attemptResult) (a attemptResult) {
	tmp, err := r.Store.createPartial()
	if err != nil {
		a.err = fail(0, fmt.Errorf("cache: %w", err))
		return a
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	n, err := io.Copy(tmp, io.LimitReader(body, c.cfg.MaxSize+1))
	if err != nil {
		return failed(status, err, false)
	}
	if n > c.cfg.MaxSize {
		// Streamed, not announced: it cost the whole bound, and would
		// again for each file.
		a.err = fail(status, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, c.cfg.MaxSize))
		a.hostile = true
		return a
	}
	if err := tmp.Close(); err != nil {
		a.err = fail(0, fmt.Errorf("cache: %w", err))
		return a
	}
	if r.Check != nil {
		if err := r.Check(tmp.Name()); err != nil {
			a.err = fail(status, err)
			return a
		}
	}
	if err := os.MkdirAll(filepath.Dir(r.Local), 0o755); err != nil {
		a.err = fail(0, fmt.Errorf("cache: %w", err))
		return a
	}
	removeOldDownloads(filepath.Dir(r.Local))
	if err := os.Rename(tmp.Name(), r.Local); err != nil {
		a.err = fail(0, fmt.Errorf("cache: %w", err))
		return a
	}
	committed = true
	return a
}

func headLen(heads [][]byte) int {
	n := 0
	for _, h := range heads {
		n = max(n, len(h))
	}
	return n
}

func startsWell(head []byte, heads [][]byte) bool {
	if len(heads) == 0 {
		return true
	}
	for _, h := range heads {
		if bytes.HasPrefix(head, h) {
			return true
		}
	}
	return false
}

// removeOldDownloads removes, from a cache directory a download is about
// to be stored in, the .download-* files that versions before the partial
// directory wrote there and left behind when killed (up to 4 GiB each).
// Those older than an hour cannot belong to a download still running.
func removeOldDownloads(dir string) {
	old, _ := filepath.Glob(filepath.Join(dir, ".download-*"))
	for _, p := range old {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > time.Hour {
			os.Remove(p)
		}
	}
}

// countingReader counts the bytes read from r in n, and fails every read
// once ctx is done.
type countingReader struct {
	r   io.Reader
	n   *atomic.Int64
	ctx context.Context
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// inflateBound reads a decoded body, failing once it has inflated past
// ratio times the bytes received (plus expansionSlack), and every read
// once ctx is done (the decoder inflates what it has buffered).
type inflateBound struct {
	r       io.Reader
	wire    *atomic.Int64
	ratio   int64
	decoded int64
	ctx     context.Context
}

func (b *inflateBound) Read(p []byte) (int, error) {
	if b.ctx.Err() != nil {
		return 0, context.Cause(b.ctx)
	}
	k, err := b.r.Read(p)
	b.decoded += int64(k)
	if wire := b.wire.Load(); b.decoded > expansionSlack && b.decoded/b.ratio > wire {
		return k, fmt.Errorf("%w: gzip-encoded body inflating %d bytes to more than %d (%d times)",
			ErrTooLarge, wire, b.decoded, b.ratio)
	}
	return k, err
}

// watchRate cancels a download, with ErrTooSlow as the cause, when fewer
// than MinRate bytes per second arrive in a rate window. It returns the
// function that stops watching.
func (c *Client) watchRate(received *atomic.Int64, cancel context.CancelCauseFunc) func() {
	rate, window := c.cfg.MinRate, c.cfg.RateWindow
	if rate <= 0 || window <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(window)
		defer t.Stop()
		var last int64
		for {
			select {
			case <-done:
				return
			case <-t.C:
				n := received.Load()
				if float64(n-last) < float64(rate)*window.Seconds() {
					cancel(fmt.Errorf("%w: %d bytes in %v, below %d bytes/s", ErrTooSlow, n-last, window, rate))
					return
				}
				last = n
			}
		}
	}()
	return func() { close(done) }
}
