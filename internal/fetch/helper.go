package fetch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// HelperName is the helper program that makes the HTTP requests of
// symbol servers and debuginfod, as git runs git-remote-https: net/http
// and TLS are linked there, not into minidump-stackwalk.
const HelperName = "minidump-stackwalk-fetch"

// ErrNoHelper reports that the helper program is not installed.
var ErrNoHelper = errors.New(HelperName + " not found beside minidump-stackwalk or on PATH: symbol servers and debuginfod need it " +
	"(in the source: CGO_ENABLED=0 go install ./cmd/minidump-stackwalk-fetch; README.md, \"Install\")")

// FindHelper returns the helper program's path: beside the running
// executable first, then on PATH; ErrNoHelper when it is in neither.
func FindHelper() (string, error) {
	name := HelperName
	if exe, err := os.Executable(); err == nil {
		for _, ext := range []string{filepath.Ext(exe), ""} { // ".exe" on Windows
			p := filepath.Join(filepath.Dir(exe), name+ext)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", ErrNoHelper
}

// HelperTransport is the Transport that runs the helper program
// (FindHelper) at its first request and keeps it for the others: one
// process, its requests multiplexed over its standard input and output
// (helperwire.go). The helper ends when the command does, or when no
// request was in flight for helperIdle (its standard input is closed);
// the next request starts another.
type HelperTransport struct {
	mu  sync.Mutex
	cur *helperProc
}

// helperIdle is how long a helper with nothing to do is kept.
const helperIdle = 2 * time.Second

// helperProc is one run of the helper.
type helperProc struct {
	mu      sync.Mutex // pending, next, err, idle
	err     error      // the start's, or the helper's end
	w       io.WriteCloser
	wmu     sync.Mutex // one frame at a time on w
	next    uint32
	pending map[uint32]*helperCall
	idle    *time.Timer
}

// helperCall is a request in flight: its head, then its body's chunks.
type helperCall struct {
	head   chan *helperHead // one head, or closed at the end without one
	chunks chan []byte      // closed at the end
	end    *helperEnd       // set before chunks closes
	done   chan struct{}    // closed when the caller gives up or closes the body
	once   sync.Once
}

// proc returns the running helper, started if need be.
func (t *HelperTransport) proc() (*helperProc, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.cur; p != nil {
		p.mu.Lock()
		ended := p.w == nil
		p.mu.Unlock()
		if !ended {
			return p, nil
		}
	}
	path, err := FindHelper()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path)
	cmd.Stderr = os.Stderr
	w, err := cmd.StdinPipe()
	if err == nil {
		var r io.ReadCloser
		if r, err = cmd.StdoutPipe(); err == nil {
			if err = cmd.Start(); err == nil {
				t.cur = newHelperProc(w, r, cmd.Wait)
				return t.cur, nil
			}
		}
	}
	return nil, fmt.Errorf("%s: %w", path, err)
}

// Start starts the helper unless it runs, so that its start is not
// counted in a request's time.
func (t *HelperTransport) Start() error {
	_, err := t.proc()
	return err
}

// RoundTrip sends r to the helper and waits for its head.
func (t *HelperTransport) RoundTrip(ctx context.Context, r *HTTPRequest) (*HTTPResponse, error) {
	payload, err := json.Marshal(r)
	if err != nil {
		return nil, &NetError{Msg: err.Error()}
	}
	p, err := t.proc()
	if err != nil {
		return nil, &NetError{Msg: err.Error(), Err: err}
	}
	id, call, err := p.add()
	if err == nil {
		err = p.send(frameRequest, id, payload)
	}
	if err != nil {
		p.forget(id)
		return nil, &NetError{Msg: fmt.Sprintf("%s: %v", HelperName, err)}
	}
	select {
	case h, ok := <-call.head:
		if !ok {
			p.forget(id)
			return nil, call.end.err()
		}
		body := &helperBody{p: p, id: id, call: call, ctx: ctx}
		return &HTTPResponse{StatusCode: h.Status, StatusText: h.StatusText, ContentLength: h.ContentLength, URL: h.URL,
			Location: h.Location, RetryAfter: h.RetryAfter, ContentEncoding: h.Encoding, Body: body}, nil
	case <-ctx.Done():
		p.cancel(id, call)
		return nil, ctxError(ctx)
	}
}

func ctxError(ctx context.Context) error {
	return &NetError{Msg: context.Cause(ctx).Error(), Err: ctx.Err(), Transient: errors.Is(ctx.Err(), context.DeadlineExceeded)}
}

// newHelperProc speaks to a helper through w and r; wait waits for its
// end once r has ended.
func newHelperProc(w io.WriteCloser, r io.Reader, wait func() error) *helperProc {
	p := &helperProc{w: w, pending: map[uint32]*helperCall{}}
	go p.demux(bufio.NewReaderSize(r, helperChunk+16), wait)
	return p
}

// add registers a new request.
func (p *helperProc) add() (uint32, *helperCall, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil {
		return 0, nil, p.err
	}
	if p.idle != nil {
		p.idle.Stop()
		p.idle = nil
	}
	p.next++
	call := &helperCall{head: make(chan *helperHead, 1), chunks: make(chan []byte, 8), done: make(chan struct{})}
	p.pending[p.next] = call
	return p.next, call, nil
}

func (p *helperProc) send(kind byte, id uint32, payload []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	return writeFrame(p.w, kind, id, payload)
}

// forget drops a request; the last one's end starts the idle time.
func (p *helperProc) forget(id uint32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.pending, id)
	p.armIdle()
}

// armIdle closes the helper's input once no request came for helperIdle.
// p.mu is held.
func (p *helperProc) armIdle() {
	if len(p.pending) > 0 || p.idle != nil || p.w == nil {
		return
	}
	var timer *time.Timer
	timer = time.AfterFunc(helperIdle, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.idle != timer || len(p.pending) > 0 || p.w == nil {
			return
		}
		p.wmu.Lock()
		p.w.Close()
		p.wmu.Unlock()
		p.w, p.err = nil, errors.New(HelperName+" ended")
	})
	p.idle = timer
}

// cancel gives up a request: the helper stops it, its frames are dropped.
func (p *helperProc) cancel(id uint32, call *helperCall) {
	call.once.Do(func() { close(call.done) })
	p.forget(id)
	p.mu.Lock()
	running := p.w != nil
	p.mu.Unlock()
	if running {
		p.send(frameCancel, id, nil) // a helper already gone has nothing to stop
	}
}

// demux hands the helper's frames to their requests until it ends; then
// every request in flight fails.
func (p *helperProc) demux(r *bufio.Reader, wait func() error) {
	var err error
	for err == nil {
		var kind byte
		var id uint32
		var payload []byte
		if kind, id, payload, err = readFrame(r); err == nil {
			err = p.deliver(kind, id, payload)
		}
	}
	if werr := wait(); werr != nil && errors.Is(err, io.EOF) {
		err = werr
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil {
		p.w.Close()
		p.w = nil
		p.err = fmt.Errorf("%s ended: %w", HelperName, err)
	}
	for id, call := range p.pending {
		call.end = &helperEnd{Err: p.err.Error()}
		close(call.head)
		close(call.chunks)
		delete(p.pending, id)
	}
}

// deliver gives one frame to its request; a frame of a request given up
// is dropped.
func (p *helperProc) deliver(kind byte, id uint32, payload []byte) error {
	p.mu.Lock()
	call := p.pending[id]
	if kind == frameEnd && call != nil {
		delete(p.pending, id)
		p.armIdle()
	}
	p.mu.Unlock()
	if call == nil {
		return nil
	}
	switch kind {
	case frameHead:
		h := new(helperHead)
		if err := json.Unmarshal(payload, h); err != nil {
			return fmt.Errorf("bad response frame: %w", err)
		}
		call.head <- h
	case frameBody:
		select {
		case call.chunks <- payload:
		case <-call.done:
		}
	case frameEnd:
		end := new(helperEnd)
		if err := json.Unmarshal(payload, end); err != nil {
			return fmt.Errorf("bad end frame: %w", err)
		}
		call.end = end
		close(call.head) // after a head, nobody reads it again
		close(call.chunks)
	default:
		return fmt.Errorf("unknown frame %q", kind)
	}
	return nil
}

// helperBody reads a response's body from its chunks.
type helperBody struct {
	p    *helperProc
	id   uint32
	call *helperCall
	ctx  context.Context
	buf  []byte
	err  error
}

func (b *helperBody) Read(p []byte) (int, error) {
	for len(b.buf) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		select {
		case chunk, ok := <-b.call.chunks:
			if !ok {
				b.err = io.EOF
				if e := b.call.end.err(); e != nil {
					b.err = e
				}
				continue
			}
			b.buf = chunk
		case <-b.ctx.Done():
			b.p.cancel(b.id, b.call)
			b.err = ctxError(b.ctx)
		}
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	return n, nil
}

// Close gives up what is left of the body.
func (b *helperBody) Close() error {
	if b.err == nil || !errors.Is(b.err, io.EOF) {
		b.p.cancel(b.id, b.call)
	}
	b.err = errors.New("read of a closed body")
	return nil
}

// err is the end frame's failure, nil for a clean end.
func (e *helperEnd) err() error {
	if e == nil || e.Err == "" {
		return nil
	}
	return &NetError{Msg: e.Err, Transient: e.Transient, Redirect: e.Redirect, Loop: e.Loop, Err: stdError(e.Std)}
}

// stdError and StdErrorName carry the standard errors a Client tests for
// across the pipe.
func stdError(name string) error {
	switch name {
	case "unexpected-eof":
		return io.ErrUnexpectedEOF
	case "eof":
		return io.EOF
	case "deadline":
		return context.DeadlineExceeded
	case "canceled":
		return context.Canceled
	case "refused":
		return syscall.ECONNREFUSED
	}
	return nil
}

// StdErrorName names the standard error err wraps, for a helperEnd.
func StdErrorName(err error) string {
	for _, name := range [...]string{"unexpected-eof", "eof", "deadline", "canceled", "refused"} {
		if errors.Is(err, stdError(name)) {
			return name
		}
	}
	return ""
}
