package signature

import (
	"strings"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

// nameMemo remembers, for the function names of frames already seen, the
// normalised name and what the rules' lists say of it: a batch meets the
// same functions in dump after dump, and their regular expressions were a
// tenth of a warm batch's CPU time. Only names of frames with a function
// are kept (a frame without one is named by its offset), at most
// maxMemoNames of at most maxMemoName bytes: 16 MiB at worst. Safe for
// concurrent use; a Rules copy (WithGrouping) shares it, the lists it
// depends on being the same.
type nameMemo struct {
	mu sync.RWMutex
	by map[memoKey]frameState
}

type memoKey struct {
	function string
	rust     bool
}

const (
	maxMemoNames = 8192
	maxMemoName  = 1024
)

// key returns f's key, false when f's name is not kept.
func memoKeyOf(f *triage.Frame) (memoKey, bool) {
	if f.Function == "" || len(f.Function) > maxMemoName {
		return memoKey{}, false
	}
	return memoKey{f.Function, strings.HasSuffix(f.File, ".rs")}, true
}

// get returns f's remembered state: its name and list flags.
func (m *nameMemo) get(f *triage.Frame) (frameState, bool) {
	k, ok := memoKeyOf(f)
	if m == nil || !ok {
		return frameState{}, false
	}
	m.mu.RLock()
	s, ok := m.by[k]
	m.mu.RUnlock()
	return s, ok
}

// put remembers s, f's state, while there is room.
func (m *nameMemo) put(f *triage.Frame, s frameState) {
	k, ok := memoKeyOf(f)
	if m == nil || !ok {
		return
	}
	s.module, s.path = "", "" // the frame's own, set by frameStates
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.by == nil {
		m.by = make(map[memoKey]frameState)
	}
	if len(m.by) < maxMemoNames {
		m.by[k] = s
	}
}
