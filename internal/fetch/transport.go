package fetch

import (
	"context"
	"io"
	"net/url"
)

// Transport makes a Client's HTTP exchanges. The command's is the helper
// program (HelperTransport: net/http and TLS live in
// minidump-stackwalk-fetch, so that a run without a symbol server does
// not link or start them); package nethttp is the same exchange in the
// calling process, which the helper serves. Every bound of docs/limits.md
// is the Client's, on this side of the Transport.
type Transport interface {
	// RoundTrip makes one GET. ctx cancels it, the body's reads
	// included. Its errors are *NetError.
	RoundTrip(ctx context.Context, r *HTTPRequest) (*HTTPResponse, error)
}

// HTTPRequest is one GET of a Transport.
type HTTPRequest struct {
	URL string
	// NoRedirect answers a redirect with its own status and Location
	// instead of following it; followed redirects are bounded by
	// MaxRedirects and to http and https.
	NoRedirect bool
	// AcceptGzip asks for Content-Encoding: gzip, which the Client
	// decodes itself under its expansion bound: the Transport never does.
	AcceptGzip bool
}

// HTTPResponse is the answer to an HTTPRequest.
type HTTPResponse struct {
	StatusCode int
	StatusText string // http.StatusText of StatusCode
	// ContentLength is -1 when unknown.
	ContentLength int64
	// URL answered the request (the last of its redirects).
	URL string
	// The headers the Client reads.
	Location, RetryAfter, ContentEncoding string
	Body                                  io.ReadCloser
}

// NetError is a Transport's failure, as it crosses the helper's pipe: its
// text, and what the Client needs to know of it.
type NetError struct {
	Msg string
	// Transient: a timeout, a reset or closed connection, a body cut
	// short: worth a retry. A refused connection is not.
	Transient bool
	// Redirect: a redirect refused (out of http(s)), Loop: past
	// MaxRedirects.
	Redirect, Loop bool
	// Err is the standard error it stands for where there is one
	// (io.ErrUnexpectedEOF, context.DeadlineExceeded...), for errors.Is.
	Err error
}

func (e *NetError) Error() string { return e.Msg }

func (e *NetError) Unwrap() error { return e.Err }

// answerURL parses the URL that answered, nil when it does not parse.
func answerURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		return nil
	}
	return u
}
