package fetch

import (
	"net/http"
	"sync"
)

// http1Closer is the RoundTripper of a Client's HTTP clients: it uses
// each HTTP/1 connection for one request. A server that sends more than
// its Content-Length leaves bytes on the connection, and Go's transport,
// finding them on an idle connection, prints "Unsolicited response
// received on idle HTTP channel" on stderr (issue 26); a connection
// closed after its response is never idle. A host's first request closes
// its connection too; once a host has answered over HTTP/2, whose streams
// are framed, its connections are reused. The cost is a connection per
// request to HTTP/1 servers: most requests are misses, whose unread
// bodies closed the connection anyway, or files large beside a handshake.
type http1Closer struct {
	rt    http.RoundTripper // nil: http.DefaultTransport
	http2 sync.Map          // host → true once it answered over HTTP/2
}

// NewTransport returns the RoundTripper of downloads over rt (nil:
// http.DefaultTransport): HTTP/1 connections carry one request each, so
// that no server can make the HTTP client log on stderr.
func NewTransport(rt http.RoundTripper) http.RoundTripper { return &http1Closer{rt: rt} }

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
