package synthkit

import (
	"bytes"
	"testing"
)

func TestStackLabels(t *testing.T) {
	s := NewStack(0x1000, 4)
	s.WordLabel("later", 4).D32(0xcafef00d).Mark("later").Word(0x11223344)
	got, err := s.Finish()
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x0c, 0x10, 0, 0, 0x0d, 0xf0, 0xfe, 0xca, 0x44, 0x33, 0x22, 0x11}
	if !bytes.Equal(got, want) {
		t.Errorf("stack bytes = % x, want % x", got, want)
	}
	if a, ok := s.Label("later"); !ok || a != 0x1008 {
		t.Errorf("Label(later) = %#x, %v; want 0x1008", a, ok)
	}
	if s.Here() != 0x100c || s.Size() != 12 {
		t.Errorf("Here = %#x, Size = %d", s.Here(), s.Size())
	}
	s64 := NewStack(0x2000, 8).Append(3, 0xff).Align(8).WordLabel("nowhere", 0)
	if _, err := s64.Finish(); err == nil {
		t.Error("Finish with an unmarked label succeeded")
	}
	if s64.Size() != 16 {
		t.Errorf("aligned 64-bit stack size = %d, want 16", s64.Size())
	}
}
