package processor

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
	"github.com/minidump-stackwalk/minidump-stackwalk/microdump"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

func processBytes(t *testing.T, data []byte, opts Options) *ProcessState {
	t.Helper()
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	st, err := Process(f, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// A thread whose stack descriptor points past the file is walked from its
// context and reported, naming the thread, the stream and the offset; after
// the first few such threads the rest are counted in one warning.
func TestUnreadableStacksReported(t *testing.T) {
	const n = 50
	data, err := hostile.UnreadableStacks(n)
	if err != nil {
		t.Fatal(err)
	}
	st := processBytes(t, data, Options{})
	var notes []string
	for _, e := range st.Errors {
		if strings.Contains(e.Error(), "stack") {
			notes = append(notes, e.Error())
		}
	}
	if len(notes) != maxRepeatedNotes+1 {
		t.Fatalf("%d stack warnings, want %d:\n%s", len(notes), maxRepeatedNotes+1, strings.Join(notes, "\n"))
	}
	for i, want := range []string{"thread 0 (id 0x1)", "MD_THREAD_LIST_STREAM", "at offset 0xfffffff0"} {
		if !strings.Contains(notes[0], want) {
			t.Errorf("warning %q lacks %q (%d)", notes[0], want, i)
		}
	}
	if want := fmt.Sprintf("%d more threads with unreadable stacks, the first: thread %d ", n-maxRepeatedNotes, maxRepeatedNotes); !strings.Contains(notes[maxRepeatedNotes], want) {
		t.Errorf("summary %q lacks %q", notes[maxRepeatedNotes], want)
	}
	for _, th := range st.Threads {
		if len(th.Frames) != 1 {
			t.Errorf("thread %d: %d frames, want 1 (the context)", th.Index, len(th.Frames))
		}
	}
}

// Threads sharing one deep frame chain: the frames kept across threads stay
// within MaxTotalFrames (plus one per thread), the requesting thread gets
// half, the others equal shares; -b's WalkOnlyRequesting walks one thread.
func TestFrameBudgetAcrossThreads(t *testing.T) {
	const threads, depth, total = 20, 5000, 4000
	data, err := hostile.FrameChain(threads, depth)
	if err != nil {
		t.Fatal(err)
	}
	full := processBytes(t, data, Options{MaxTotalFrames: 1 << 20})
	if n := len(full.Threads[0].Frames); n < depth {
		t.Fatalf("unbounded walk: %d frames, want the chain's %d", n, depth)
	}
	st := processBytes(t, data, Options{MaxTotalFrames: total})
	sum := 0
	for _, th := range st.Threads {
		sum += len(th.Frames)
		if !th.Truncated {
			t.Errorf("thread %d: %d frames, not marked truncated", th.Index, len(th.Frames))
		}
	}
	if sum > total+threads {
		t.Errorf("%d frames kept, budget %d", sum, total)
	}
	if req := st.RequestingThread; req != 0 || len(st.Threads[0].Frames) < total/2 || len(st.Threads[1].Frames) < (total/2)/(threads-1) {
		t.Errorf("requesting thread %d has %d frames, thread 1 %d; want about %d and %d", req,
			len(st.Threads[0].Frames), len(st.Threads[1].Frames), total/2, (total/2)/(threads-1))
	}
	// The kept frames are those of the unbounded walk.
	for i, f := range st.Threads[0].Frames {
		if f.Instruction != full.Threads[0].Frames[i].Instruction {
			t.Fatalf("frame %d differs from the unbounded walk", i)
		}
	}

	one := processBytes(t, data, Options{WalkOnlyRequesting: true})
	for _, th := range one.Threads[1:] {
		if th.Status != ThreadNotWalked || th.Frames != nil {
			t.Errorf("thread %d walked with WalkOnlyRequesting", th.Index)
		}
	}
	if len(one.Threads[0].Frames) < depth {
		t.Errorf("requesting thread: %d frames", len(one.Threads[0].Frames))
	}
}

// A spent time budget stops every walk at its first caller, marks the
// threads truncated and says so once per thread, then in a count.
func TestWalkTimeBudget(t *testing.T) {
	data, err := hostile.FrameChain(10, 100)
	if err != nil {
		t.Fatal(err)
	}
	st := processBytes(t, data, Options{MaxTime: time.Nanosecond})
	for _, th := range st.Threads {
		if len(th.Frames) != 1 || !th.Truncated {
			t.Errorf("thread %d: %d frames, truncated %v; want the context frame, truncated", th.Index, len(th.Frames), th.Truncated)
		}
	}
	var notes []string
	for _, e := range st.Errors {
		if strings.Contains(e.Error(), "walk") {
			notes = append(notes, e.Error())
		}
	}
	if len(notes) != maxRepeatedNotes+1 || !strings.Contains(notes[maxRepeatedNotes], "5 more walks stopped by the time budget") {
		t.Errorf("notes:\n%s", strings.Join(notes, "\n"))
	}
}

// A microdump's walk keeps to the same time budget.
func TestMicrodumpWalkTimeBudget(t *testing.T) {
	d, err := microdump.Parse(hostile.Microdump(10))
	if err != nil {
		t.Fatal(err)
	}
	opts := MicrodumpOptions()
	opts.MaxTime = time.Nanosecond
	st, err := ProcessMicrodump(d, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if th := st.Threads[0]; len(th.Frames) != 1 || !th.Truncated {
		t.Errorf("%d frames, truncated %v; want the context frame, truncated", len(th.Frames), th.Truncated)
	}
	if len(st.Errors) != 1 || !strings.Contains(st.Errors[0].Error(), "walk stopped after 1 frames") {
		t.Errorf("errors %v", st.Errors)
	}
}

// BenchmarkWalkOnlyRequesting walks the amplification dump of issue 17
// (100 threads sharing one 100k-frame chain) as the text outputs do:
// every thread (the default report, and -c in --breakpad-compat), and the
// requesting thread alone (-b, and -c by default). It reports the frames
// walked and the bytes allocated per run:
//
//	go test -run X -bench WalkOnlyRequesting -benchtime 1x -benchmem ./processor
func BenchmarkWalkOnlyRequesting(b *testing.B) {
	data, err := hostile.FrameChain(100, 100_000)
	if err != nil {
		b.Fatal(err)
	}
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	for _, only := range []bool{false, true} {
		name := "all-threads"
		if only {
			name = "requesting-only"
		}
		b.Run(name, func(b *testing.B) {
			frames, walked := 0, 0
			for range b.N {
				st, err := Process(f, nil, Options{WalkOnlyRequesting: only})
				if err != nil {
					b.Fatal(err)
				}
				for _, th := range st.Threads {
					frames += len(th.Frames)
					if th.Frames != nil {
						walked++
					}
				}
			}
			b.ReportMetric(float64(frames)/float64(b.N), "frames/op")
			b.ReportMetric(float64(walked)/float64(b.N), "threads/op")
		})
	}
}

// A stream error joining one error per entry (here a bad name per module)
// is noted with its first few entries and a count of the rest.
func TestJoinedErrorsCapped(t *testing.T) {
	const n = 1000
	data, err := hostile.BadModuleNames(n)
	if err != nil {
		t.Fatal(err)
	}
	st := processBytes(t, data, Options{})
	var text string
	for _, e := range st.Errors {
		if strings.HasPrefix(e.Error(), "module list") {
			text = e.Error()
		}
	}
	lines := strings.Split(text, "\n")
	if len(lines) != maxRepeatedNotes+1 {
		t.Fatalf("module list warning of %d lines, want %d:\n%s", len(lines), maxRepeatedNotes+1, text)
	}
	if want := fmt.Sprintf("%d more module list errors, the first: ", n-maxRepeatedNotes); !strings.Contains(lines[maxRepeatedNotes], want) {
		t.Errorf("summary %q lacks %q", lines[maxRepeatedNotes], want)
	}
	for _, l := range lines {
		if !strings.Contains(l, "MD_MODULE_LIST_STREAM at offset 0x") {
			t.Errorf("line %q names no stream and offset", l)
		}
	}
}
