package processor

import (
	"context"
	"fmt"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// Processing budget (docs/limits.md). A dump whose threads all point at one
// deep frame chain multiplies the chain by the thread count: 100 threads
// sharing a 100k-frame chain (a 1.7 MB dump) peaked at 14.7 GB before these
// bounds.
const (
	// DefaultMaxTotalFrames bounds the frames kept across all threads of a
	// dump. The requesting thread may use half; the other threads share
	// the rest equally (see frameCaps). A kept frame costs about 1.5 KB of
	// memory, 2.5 KB with the JSON report: at 2^18 frames the JSON report
	// of the amplification dump peaked at 588 MB (docs/limits.md).
	DefaultMaxTotalFrames = 1 << 17
	// DefaultMaxTime bounds the time spent walking the threads of one dump:
	// walks still running then stop, marked truncated, with a note.
	DefaultMaxTime = time.Minute
)

// bounds returns the per-thread and total frame caps and the time budget
// of opts, defaults filled in.
func (opts Options) bounds() (perThread, total int, maxTime time.Duration) {
	perThread, total, maxTime = opts.MaxFrames, opts.MaxTotalFrames, opts.MaxTime
	if perThread <= 0 {
		perThread = walker.DefaultMaxFrames
	}
	if total <= 0 {
		total = DefaultMaxTotalFrames
	}
	if maxTime <= 0 {
		maxTime = DefaultMaxTime
	}
	return perThread, total, maxTime
}

// frameCaps returns the frame cap of each walk: jobs[i] is true for the
// requesting thread. Each cap is at most perThread; the requesting thread's
// is at most half of total, and the others share the rest equally, so the
// frames kept stay under total plus one per thread, whatever the dump. The
// caps depend only on the thread list, so the output does not depend on
// the order in which the walks finish.
func frameCaps(requesting []bool, perThread, total int) []int {
	caps := make([]int, len(requesting))
	if len(caps) == 0 {
		return caps
	}
	others := len(caps)
	reqCap := 0
	for _, r := range requesting {
		if r {
			others--
			reqCap = min(perThread, total/2)
		}
	}
	share := total - reqCap
	if others > 0 {
		share = max(1, share/others)
	}
	for i, r := range requesting {
		if r {
			caps[i] = reqCap
		} else {
			caps[i] = min(perThread, share)
		}
	}
	return caps
}

// timedArch stops a walk, as if no caller were found, once the deadline
// has passed; expired tells the processor to mark the thread truncated.
// It stops too once ctx (Options.Context; nil: none) is done.
type timedArch struct {
	walker.Arch
	deadline time.Time
	done     <-chan struct{}
	expired  bool
}

func newTimedArch(arch walker.Arch, deadline time.Time, ctx context.Context) *timedArch {
	a := &timedArch{Arch: arch, deadline: deadline}
	if ctx != nil {
		a.done = ctx.Done()
	}
	return a
}

func (a *timedArch) Caller(w *walker.Walker, scanAllowed bool) *walker.Frame {
	// time.Until reads only the monotonic clock; time.Now reads the wall
	// clock too, and its two clock reads per frame were 2% of a warm
	// batch's CPU (issue 29).
	if time.Until(a.deadline) < 0 || a.cancelled() {
		a.expired = true
		return nil
	}
	return a.Arch.Caller(w, scanAllowed)
}

// cancelled reports whether the context is done, without waiting.
func (a *timedArch) cancelled() bool {
	select {
	case <-a.done: // a nil channel is never ready
		return true
	default:
		return false
	}
}

// frameCapError is the problem of a stack cut at its frame cap: like a
// walk stopped by the time budget, a partial result (a Failure: exit
// status 1, JSON status ERROR_PARTIAL), never a silently short stack.
func frameCapError(thread, limit int) error {
	return fmt.Errorf("thread %d: stack cut at its cap of %d frames (Options.MaxTotalFrames, --max-frames-total)", thread, limit)
}
