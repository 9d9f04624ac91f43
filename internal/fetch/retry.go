package fetch

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"strconv"
	"time"
)

// RetryPolicy bounds the retries of a transient download failure: an HTTP
// 5xx or 429 answer, a request that timed out, a connection reset or cut
// off mid-body. A definite miss (404, 410), any other 4xx, a refused
// connection and a server below the minimum rate are never retried.
type RetryPolicy struct {
	// Retries is the number of further attempts after the first; 0 turns
	// retrying off.
	Retries int
	// Base is the delay before the first retry; each further one doubles
	// it, up to MaxDelay. Each delay is jittered to between half and all
	// of its value, so that clients that failed together do not retry
	// together.
	Base     time.Duration
	MaxDelay time.Duration
	// MaxWait bounds the delays of one file together. A Retry-After
	// longer than MaxDelay is not waited for: the failure is reported.
	MaxWait time.Duration
}

// DefaultRetry is the RetryPolicy of DefaultConfig: three retries after
// about 0.5 s, 1 s and 2 s, a Retry-After of up to 10 s honoured, at most
// 30 s of waiting per file (the total download bound still applies).
var DefaultRetry = RetryPolicy{Retries: 3, Base: 500 * time.Millisecond, MaxDelay: 10 * time.Second, MaxWait: 30 * time.Second}

// delay returns the wait before retry number n (0 for the first), or false
// when the server asked for a longer wait than the policy allows.
func (p RetryPolicy) delay(n int, retryAfter time.Duration) (time.Duration, bool) {
	if retryAfter > 0 {
		return retryAfter, retryAfter <= p.MaxDelay
	}
	d := p.Base
	for i := 0; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	if d <= 0 {
		return 0, true
	}
	return d/2 + rand.N(d/2+1), true
}

// retryAfter parses a Retry-After header, in seconds or as an HTTP date,
// relative to now; 0 when absent or unusable (then the policy's own
// backoff applies). A date in the past is a wait of 0.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(h, 10, 64); err == nil {
		if secs <= 0 || secs > 1<<31 {
			return 0
		}
		return time.Duration(secs) * time.Second
	}
	for _, layout := range httpTimeLayouts {
		if t, err := time.Parse(layout, h); err == nil {
			if t.After(now) {
				return t.Sub(now)
			}
			return 0
		}
	}
	return 0
}

// httpTimeLayouts are the date formats HTTP/1.1 accepts (RFC 9110 5.6.7),
// as net/http's ParseTime reads them: IMF-fixdate, RFC 850, asctime.
var httpTimeLayouts = [...]string{
	"Mon, 02 Jan 2006 15:04:05 GMT",
	"Monday, 02-Jan-06 15:04:05 GMT",
	"Mon Jan _2 15:04:05 2006",
}

// transient reports whether a failure is worth a retry: one the
// Transport classed so (a timeout, a reset or closed connection: see
// nethttp), a deadline, a body cut short. A refused connection is not:
// nothing listens there.
func transient(err error) bool {
	if ne := (*NetError)(nil); errors.As(err, &ne) {
		return ne.Transient
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}
