package depot

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

// Depot holds distinct stacks by id. It is safe for concurrent use; the
// zero value is not: use New.
type Depot struct {
	mu      sync.Mutex
	stacks  map[string][]triage.Frame
	strings map[string]string // interned frame strings
}

// New returns an empty depot.
func New() *Depot {
	return &Depot{stacks: map[string][]triage.Frame{}, strings: map[string]string{}}
}

// ID returns the stack_id of frames: 16 hex digits of the SHA-256 of their
// fields, each length-prefixed so that no two stacks share an encoding.
func ID(frames []triage.Frame) string {
	h := sha256.New()
	var buf []byte
	field := func(s string) {
		buf = strconv.AppendInt(buf[:0], int64(len(s)), 10)
		buf = append(buf, ':')
		buf = append(buf, s...)
		h.Write(buf)
	}
	for i := range frames {
		f := &frames[i]
		field(f.Module)
		field(f.Function)
		field(f.File)
		field(strconv.Itoa(f.Line))
		field(f.Offset)
		field(f.Trust)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Put stores frames (when the stack is new) and returns its id.
func (d *Depot) Put(frames []triage.Frame) string {
	id := ID(frames)
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.stacks[id]; !ok {
		d.stacks[id] = d.intern(frames)
	}
	return id
}

// PutWithID stores frames under id, as a merge does with a shard's stacks.
func (d *Depot) PutWithID(id string, frames []triage.Frame) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.stacks[id]; !ok {
		d.stacks[id] = d.intern(frames)
	}
}

// intern copies frames with their strings shared across stacks: the same
// function names recur in many stacks.
func (d *Depot) intern(frames []triage.Frame) []triage.Frame {
	out := make([]triage.Frame, len(frames))
	for i, f := range frames {
		f.Module, f.Function, f.File, f.Trust = d.str(f.Module), d.str(f.Function), d.str(f.File), d.str(f.Trust)
		out[i] = f
	}
	return out
}

func (d *Depot) str(s string) string {
	if v, ok := d.strings[s]; ok {
		return v
	}
	d.strings[s] = s
	return s
}

// Get returns the frames of the stack id; the slice must not be modified.
func (d *Depot) Get(id string) ([]triage.Frame, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f, ok := d.stacks[id]
	return f, ok
}
