// Package nethttp is fetch's Transport over net/http, in the calling
// process: the exchange the helper program minidump-stackwalk-fetch
// serves to the command (fetch.ServeHelper), and tests use directly.
// It is apart from package fetch so that the command, which only talks
// to the helper, links neither net/http nor TLS.
//
// Its HTTP/1 connections carry one request each (http1Closer), redirects
// are followed up to fetch.MaxRedirects and only to http and https, a
// gzip body is passed on encoded, and its errors are *fetch.NetError
// classed for the Client's retries (transient).
package nethttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
)

// Transport is a fetch.Transport over an http.RoundTripper.
type Transport struct {
	client *http.Client
	// lookup does not follow redirects (HTTPRequest.NoRedirect).
	lookup *http.Client
}

// New returns the Transport over rt (nil: http.DefaultTransport).
func New(rt http.RoundTripper) *Transport {
	transport := &http1Closer{rt: rt}
	return &Transport{
		client: &http.Client{
			Transport: transport, // the request's context bounds it
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) >= fetch.MaxRedirects {
					return &redirectError{msg: fmt.Sprintf("more than %d redirects", fetch.MaxRedirects), loop: true}
				}
				if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
					return &redirectError{msg: fmt.Sprintf("redirect to %q: only http and https are followed", req.URL.Scheme)}
				}
				return nil
			},
		},
		lookup: &http.Client{
			Transport:     transport,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

type redirectError struct {
	msg  string
	loop bool
}

func (e *redirectError) Error() string { return e.msg }

// RoundTrip makes one GET.
func (t *Transport) RoundTrip(ctx context.Context, r *fetch.HTTPRequest) (*fetch.HTTPResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
	if err != nil {
		return nil, &fetch.NetError{Msg: err.Error(), Err: err}
	}
	if r.AcceptGzip {
		// Asked for explicitly, gzip is not decoded by the HTTP client.
		req.Header.Set("Accept-Encoding", "gzip")
	}
	client := t.client
	if r.NoRedirect {
		client = t.lookup
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, netError(err)
	}
	return &fetch.HTTPResponse{StatusCode: resp.StatusCode, StatusText: http.StatusText(resp.StatusCode),
		ContentLength: resp.ContentLength, URL: resp.Request.URL.String(),
		Location: resp.Header.Get("Location"), RetryAfter: resp.Header.Get("Retry-After"),
		ContentEncoding: resp.Header.Get("Content-Encoding"), Body: &body{rc: resp.Body}}, nil
}

// body passes a response's reads on, their failures as *fetch.NetError.
type body struct{ rc io.ReadCloser }

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		err = netError(err)
	}
	return n, err
}

func (b *body) Close() error { return b.rc.Close() }

// netError classes a net/http failure for the Client.
func netError(err error) *fetch.NetError {
	ne := &fetch.NetError{Msg: err.Error(), Transient: transient(err), Err: stdError(err)}
	var re *redirectError
	if errors.As(err, &re) {
		ne.Redirect, ne.Loop = true, re.loop
	}
	return ne
}

// stdError is the standard error err stands for, if any (fetch tests for
// them with errors.Is).
func stdError(err error) error {
	for _, std := range [...]error{io.ErrUnexpectedEOF, io.EOF, context.DeadlineExceeded, context.Canceled, syscall.ECONNREFUSED} {
		if errors.Is(err, std) {
			return std
		}
	}
	return nil
}

// transient reports whether a network error is worth a retry: a timeout,
// a reset or closed connection, a body cut short. A refused connection is
// not: nothing listens there.
func transient(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return false
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return true
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return true
	}
	return false
}

// http1Closer is the RoundTripper of the Transport's HTTP clients: it
// uses each HTTP/1 connection for one request. A server that sends more
// than its Content-Length leaves bytes on the connection, and Go's
// transport, finding them on an idle connection, prints "Unsolicited
// response received on idle HTTP channel" on stderr (issue 26); a
// connection closed after its response is never idle. A host's first
// request closes its connection too; once a host has answered over
// HTTP/2, whose streams are framed, its connections are reused. The cost
// is a connection per request to HTTP/1 servers: most requests are
// misses, whose unread bodies closed the connection anyway, or files
// large beside a handshake.
type http1Closer struct {
	rt    http.RoundTripper // nil: http.DefaultTransport
	http2 sync.Map          // host → true once it answered over HTTP/2
}

func (c *http1Closer) RoundTrip(req *http.Request) (*http.Response, error) {
	if _, ok := c.http2.Load(req.URL.Host); !ok {
		req = req.Clone(req.Context())
		req.Close = true
	}
	rt := c.rt
	if rt == nil {
		rt = http.DefaultTransport
	}
	resp, err := rt.RoundTrip(req)
	if err == nil && resp.ProtoMajor >= 2 {
		c.http2.Store(req.URL.Host, true)
	}
	return resp, err
}
