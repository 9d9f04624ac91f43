package processor

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// TestContextStopsWalks: a cancelled Options.Context stops the walks as the
// time budget does (batch --timeout; issue 26, item 2): 20 threads over one
// 100k-frame chain end at once, truncated, with the warning.
func TestContextStopsWalks(t *testing.T) {
	data, err := hostile.FrameChain(20, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	st, err := Process(f, nil, Options{Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancelled processing took %v", d)
	}
	for _, th := range st.Threads {
		if len(th.Frames) > 1 || !th.Truncated {
			t.Errorf("thread %d: %d frames, truncated %v: want the walk stopped at its first frame", th.Index, len(th.Frames), th.Truncated)
		}
	}
	if problems := append(st.Warnings(), st.Failures()...); len(problems) == 0 || !strings.Contains(errors.Join(problems...).Error(), "cancelled") {
		t.Errorf("problems %v: want one saying the walks were cancelled", problems)
	}
}
