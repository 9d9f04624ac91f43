package processor

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/hostile"
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
