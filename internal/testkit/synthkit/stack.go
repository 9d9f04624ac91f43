package synthkit

import (
	"encoding/binary"
	"fmt"
)

// Stack builds the bytes of a stack region at a known address, for walker
// tests. Words are little-endian. Labels name addresses inside the region;
// a word may hold a label's address (plus a delta) before the label is
// marked, as frame-pointer chains need.
//
//	s := synthkit.NewStack(0x7fff0000, 8)
//	s.Word(0).Mark("frame1").WordLabel("frame2", 0).Word(0x401234)
//	s.Append(16, 0).Mark("frame2").Word(0).Word(0)
//	data, err := s.Finish()
type Stack struct {
	base     uint64
	wordSize int
	buf      []byte
	labels   map[string]uint64
	fixups   []fixup
}

type fixup struct {
	off   int
	size  int
	label string
	delta int64
}

// NewStack returns an empty stack region starting at base with the given
// word size (4 or 8).
func NewStack(base uint64, wordSize int) *Stack {
	if wordSize != 4 {
		wordSize = 8
	}
	return &Stack{base: base, wordSize: wordSize, labels: map[string]uint64{}}
}

// Base is the address of the first byte.
func (s *Stack) Base() uint64 { return s.base }

// Here is the address of the next byte to be appended.
func (s *Stack) Here() uint64 { return s.base + uint64(len(s.buf)) }

// Size is the number of bytes appended so far.
func (s *Stack) Size() int { return len(s.buf) }

// Word appends a word of the stack's word size.
func (s *Stack) Word(v uint64) *Stack {
	if s.wordSize == 4 {
		return s.D32(uint32(v))
	}
	return s.D64(v)
}

// Words appends several words.
func (s *Stack) Words(vs ...uint64) *Stack {
	for _, v := range vs {
		s.Word(v)
	}
	return s
}

// D32 appends a 32-bit value.
func (s *Stack) D32(v uint32) *Stack {
	s.buf = binary.LittleEndian.AppendUint32(s.buf, v)
	return s
}

// D64 appends a 64-bit value.
func (s *Stack) D64(v uint64) *Stack {
	s.buf = binary.LittleEndian.AppendUint64(s.buf, v)
	return s
}

// Raw appends bytes.
func (s *Stack) Raw(p []byte) *Stack {
	s.buf = append(s.buf, p...)
	return s
}

// Append appends n copies of fill.
func (s *Stack) Append(n int, fill byte) *Stack {
	for i := 0; i < n; i++ {
		s.buf = append(s.buf, fill)
	}
	return s
}

// Align pads with zeros to a multiple of n bytes from Base.
func (s *Stack) Align(n int) *Stack {
	for n > 0 && len(s.buf)%n != 0 {
		s.buf = append(s.buf, 0)
	}
	return s
}

// Mark defines label name as the current address (Here).
func (s *Stack) Mark(name string) *Stack {
	s.labels[name] = s.Here()
	return s
}

// WordLabel appends a word holding the address of label name plus delta,
// resolved by Finish.
func (s *Stack) WordLabel(name string, delta int64) *Stack {
	s.fixups = append(s.fixups, fixup{len(s.buf), s.wordSize, name, delta})
	return s.Word(0)
}

// Label returns the address of a marked label.
func (s *Stack) Label(name string) (uint64, bool) {
	a, ok := s.labels[name]
	return a, ok
}

// Finish resolves label references and returns the bytes. It fails when a
// referenced label was never marked.
func (s *Stack) Finish() ([]byte, error) {
	for _, f := range s.fixups {
		a, ok := s.labels[f.label]
		if !ok {
			return nil, fmt.Errorf("synth: stack label %q used but never marked", f.label)
		}
		v := a + uint64(f.delta)
		if f.size == 4 {
			binary.LittleEndian.PutUint32(s.buf[f.off:], uint32(v))
		} else {
			binary.LittleEndian.PutUint64(s.buf[f.off:], v)
		}
	}
	return append([]byte(nil), s.buf...), nil
}
