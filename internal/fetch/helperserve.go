package fetch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ServeHelper is the helper program's loop: it reads requests from in,
// makes each with tr, concurrently, and writes their answers to out
// (helperwire.go), until in ends; then it cancels what is in flight and
// returns. Its Client, with every bound, is the command's: the helper
// makes exchanges only.
func ServeHelper(in io.Reader, out io.Writer, tr Transport) error {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	s := &helperServer{out: bufio.NewWriterSize(out, helperChunk+16), tr: tr, calls: map[uint32]context.CancelFunc{}}
	r := bufio.NewReader(in)
	var err error
	for {
		var kind byte
		var id uint32
		var payload []byte
		if kind, id, payload, err = readFrame(r); err != nil {
			break
		}
		if err = s.take(ctx, kind, id, payload); err != nil {
			break
		}
	}
	stop()
	s.wg.Wait()
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

type helperServer struct {
	tr    Transport
	wmu   sync.Mutex
	out   *bufio.Writer
	mu    sync.Mutex
	calls map[uint32]context.CancelFunc
	wg    sync.WaitGroup
}

func (s *helperServer) take(ctx context.Context, kind byte, id uint32, payload []byte) error {
	switch kind {
	case frameRequest:
		var req HTTPRequest
		if err := json.Unmarshal(payload, &req); err != nil {
			return fmt.Errorf("bad request frame: %w", err)
		}
		cctx, cancel := context.WithCancel(ctx)
		s.mu.Lock()
		s.calls[id] = cancel
		s.mu.Unlock()
		s.wg.Add(1)
		go s.exchange(cctx, id, &req)
	case frameCancel:
		s.mu.Lock()
		if cancel := s.calls[id]; cancel != nil {
			cancel()
		}
		s.mu.Unlock()
	default:
		return fmt.Errorf("unknown frame %q", kind)
	}
	return nil
}

// exchange makes one request and writes its head, body and end.
func (s *helperServer) exchange(ctx context.Context, id uint32, req *HTTPRequest) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		s.calls[id]()
		delete(s.calls, id)
		s.mu.Unlock()
	}()
	resp, err := s.tr.RoundTrip(ctx, req)
	if err == nil {
		err = s.answer(id, resp)
		resp.Body.Close()
	}
	end := helperEnd{}
	if err != nil {
		end.Err, end.Std = err.Error(), StdErrorName(err)
		if ne := (*NetError)(nil); errors.As(err, &ne) {
			end.Transient, end.Redirect, end.Loop = ne.Transient, ne.Redirect, ne.Loop
		}
	}
	b, _ := json.Marshal(end)
	s.write(frameEnd, id, b)
}

// answer writes the head and the body of resp.
func (s *helperServer) answer(id uint32, resp *HTTPResponse) error {
	head, _ := json.Marshal(helperHead{Status: resp.StatusCode, StatusText: resp.StatusText, ContentLength: resp.ContentLength,
		URL: resp.URL, Location: resp.Location, RetryAfter: resp.RetryAfter, Encoding: resp.ContentEncoding})
	if err := s.write(frameHead, id, head); err != nil {
		return err
	}
	buf := make([]byte, helperChunk)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if werr := s.write(frameBody, id, buf[:n]); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// write sends one frame, whole and at once.
func (s *helperServer) write(kind byte, id uint32, payload []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	err := writeFrame(s.out, kind, id, payload)
	if err == nil {
		err = s.out.Flush()
	}
	return err
}
