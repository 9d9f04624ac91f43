package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTransport answers "/N" with N bytes of a pattern, "/cut" with a body
// cut short, "/redirect-loop" with a redirect loop, "/refused" with a
// refused connection, "/hang" with a body that waits for its context.
type fakeTransport struct{}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

type cutBody struct{ r io.Reader }

func (c *cutBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		return n, &NetError{Msg: "unexpected EOF", Transient: true, Err: io.ErrUnexpectedEOF}
	}
	return n, err
}

type hangBody struct{ ctx context.Context }

func (h *hangBody) Read([]byte) (int, error) {
	<-h.ctx.Done()
	return 0, &NetError{Msg: h.ctx.Err().Error(), Err: h.ctx.Err()}
}

func (fakeTransport) RoundTrip(ctx context.Context, r *HTTPRequest) (*HTTPResponse, error) {
	ok := func(body io.Reader) *HTTPResponse {
		return &HTTPResponse{StatusCode: 200, StatusText: "OK", ContentLength: -1, URL: r.URL, Body: io.NopCloser(body)}
	}
	switch r.URL {
	case "/cut":
		return ok(&cutBody{bytes.NewReader(pattern(100_000))}), nil
	case "/redirect-loop":
		return nil, &NetError{Msg: "more than 10 redirects", Redirect: true, Loop: true}
	case "/refused":
		return nil, &NetError{Msg: "connection refused", Err: stdError("refused")}
	case "/hang":
		return ok(&hangBody{ctx}), nil
	}
	var n int
	fmt.Sscanf(r.URL, "/%d", &n)
	resp := ok(bytes.NewReader(pattern(n)))
	resp.Location, resp.RetryAfter, resp.ContentEncoding = "loc"+r.URL, "7", "identity"
	return resp, nil
}

// helperPair is a helperProc whose helper is ServeHelper over fakeTransport
// in this process; kill ends the helper's output as a crash would, stop
// closes its input as the command does.
func helperPair(t *testing.T) (p *helperProc, kill, stop func()) {
	toHelper, fromCmd := io.Pipe()
	toCmd, fromHelper := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- ServeHelper(toHelper, fromHelper, fakeTransport{})
		fromHelper.Close()
	}()
	p = newHelperProc(fromCmd, toCmd, func() error { return nil })
	return p, func() { fromHelper.Close() }, func() {
		fromCmd.Close()
		if err := <-served; err != nil {
			t.Errorf("ServeHelper: %v", err)
		}
	}
}

func roundTrip(ctx context.Context, p *helperProc, url string) (*HTTPResponse, error) {
	t := &HelperTransport{cur: p}
	return t.RoundTrip(ctx, &HTTPRequest{URL: url})
}

// The helper's protocol: concurrent requests of many sizes come back
// whole with their heads; a body cut short, a redirect loop and a refused
// connection come back as the NetErrors they were, errors.Is included; a
// request given up mid-body is stopped in the helper and frees its
// stream; the helper's end fails what is in flight.
func TestHelperWire(t *testing.T) {
	p, kill, stop := helperPair(t)
	defer stop()
	var wg sync.WaitGroup
	for _, n := range []int{0, 1, helperChunk - 1, helperChunk, helperChunk + 1, 1 << 20, 3<<20 + 5} {
		want := pattern(n) // made first: the helper is closed once idle for helperIdle
		wg.Add(1)
		go func() {
			defer wg.Done()
			url := fmt.Sprintf("/%d", n)
			resp, err := roundTrip(context.Background(), p, url)
			if err != nil {
				t.Errorf("%s: %v", url, err)
				return
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || !bytes.Equal(got, want) || resp.StatusCode != 200 || resp.Location != "loc"+url ||
				resp.RetryAfter != "7" || resp.ContentEncoding != "identity" || resp.URL != url || resp.ContentLength != -1 {
				t.Errorf("%s: %d bytes, %v, head %+v", url, len(got), err, *resp)
			}
		}()
	}
	wg.Wait()

	resp, err := roundTrip(context.Background(), p, "/cut")
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	var ne *NetError
	if !errors.As(err, &ne) || !ne.Transient || !errors.Is(err, io.ErrUnexpectedEOF) || !transient(err) {
		t.Errorf("cut body: %v; want a transient NetError wrapping io.ErrUnexpectedEOF", err)
	}
	_, err = roundTrip(context.Background(), p, "/redirect-loop")
	if !errors.As(err, &ne) || !ne.Redirect || !ne.Loop || err.Error() != "more than 10 redirects" {
		t.Errorf("redirect loop: %v", err)
	}
	if _, err = roundTrip(context.Background(), p, "/refused"); !errors.Is(err, stdError("refused")) || transient(err) {
		t.Errorf("refused: %v; want ECONNREFUSED, not transient", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	resp, err = roundTrip(ctx, p, "/hang")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err = io.ReadAll(resp.Body); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 10*time.Second {
		t.Errorf("hanging body after the deadline: %v after %v", err, time.Since(start))
	}
	resp.Body.Close()
	p.mu.Lock()
	left := len(p.pending)
	p.mu.Unlock()
	if left != 0 {
		t.Errorf("%d requests still pending", left)
	}

	resp, err = roundTrip(context.Background(), p, "/hang")
	if err != nil {
		t.Fatal(err)
	}
	kill() // the helper ends: the body in flight fails, naming it
	if _, err = io.ReadAll(resp.Body); err == nil || !strings.Contains(err.Error(), HelperName) {
		t.Errorf("body after the helper ended: %v", err)
	}
	if _, err := roundTrip(context.Background(), p, "/1"); err == nil {
		t.Error("a request to an ended helper succeeded")
	}
}
