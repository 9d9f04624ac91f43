package fetch

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// The helper's protocol (this comment is its reference; its bounds are in
// docs/limits.md, "The download helper"):
// frames over the helper's standard input and output, each a kind byte,
// the request's number (uint32, big-endian), the payload's length
// (uint32) and the payload. The command sends
//
//	'Q' a request: JSON of an HTTPRequest
//	'C' cancel the request (empty payload)
//
// and closes the helper's standard input when done, which ends it; the
// helper answers each request with
//
//	'H' the response: JSON of a helperHead, then
//	'B' body bytes (up to helperChunk each), as many as it has, and
//	'E' the end: JSON of a helperEnd (no 'H' before it: no response).
//
// Frames of requests in flight interleave.
const (
	frameRequest  = 'Q'
	frameCancel   = 'C'
	frameHead     = 'H'
	frameBody     = 'B'
	frameEnd      = 'E'
	helperChunk   = 32 << 10
	maxFrameBytes = 1 << 20 // a JSON frame or a chunk: far below
)

// helperHead is an 'H' frame: an HTTPResponse without its body.
type helperHead struct {
	Status        int    `json:"status"`
	StatusText    string `json:"status_text"`
	ContentLength int64  `json:"content_length"`
	URL           string `json:"url"`
	Location      string `json:"location,omitempty"`
	RetryAfter    string `json:"retry_after,omitempty"`
	Encoding      string `json:"content_encoding,omitempty"`
}

// helperEnd is an 'E' frame: the exchange's end, with its failure if any.
type helperEnd struct {
	Err       string `json:"error,omitempty"`
	Transient bool   `json:"transient,omitempty"`
	Redirect  bool   `json:"redirect,omitempty"`
	Loop      bool   `json:"loop,omitempty"`
	// Std names the standard error it stands for ("unexpected-eof",
	// "eof", "deadline", "canceled", "refused"; netErrorStd).
	Std string `json:"std,omitempty"`
}

func writeFrame(w io.Writer, kind byte, id uint32, payload []byte) error {
	var h [9]byte
	h[0] = kind
	binary.BigEndian.PutUint32(h[1:], id)
	binary.BigEndian.PutUint32(h[5:], uint32(len(payload)))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}

// readFrame reads one frame; the payload is a fresh slice.
func readFrame(r *bufio.Reader) (kind byte, id uint32, payload []byte, err error) {
	var h [9]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, 0, nil, err
	}
	n := binary.BigEndian.Uint32(h[5:])
	if n > maxFrameBytes {
		return 0, 0, nil, fmt.Errorf("helper frame of %d bytes, limit %d", n, maxFrameBytes)
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, 0, nil, fmt.Errorf("helper frame cut short: %w", io.ErrUnexpectedEOF)
	}
	return h[0], binary.BigEndian.Uint32(h[1:]), payload, nil
}
