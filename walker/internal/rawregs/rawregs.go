package rawregs

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// Array is the raw register file of one architecture: ARM's 16 registers
// or ARM64's 33, in minidump.Context index order.
type Array interface {
	[16]uint64 | [33]uint64
}

// state is what a frame's ArchState holds.
type state[A Array] struct {
	raw A
}

// Of returns f's raw registers. A frame made without them (the context
// frame) gets them from its context, 0 for invalid registers.
func Of[A Array](f *walker.Frame) *A {
	if s, ok := f.ArchState.(*state[A]); ok {
		return &s.raw
	}
	s := &state[A]{raw: FromContext[A](f.Context)}
	f.ArchState = s
	return &s.raw
}

// FromContext returns ctx's register values, 0 for invalid registers.
func FromContext[A Array](ctx minidump.Context) A {
	var r A
	for i := range len(r) {
		r[i], _ = ctx.Index(i)
	}
	return r
}

// NewFrame returns a frame of w's walk (Walker.NewFrame) with the
// context, trust and raw registers given.
func NewFrame[A Array](w *walker.Walker, ctx minidump.Context, trust walker.Trust, r A) *walker.Frame {
	return w.NewFrame(walker.Frame{Context: ctx, Trust: trust, ArchState: &state[A]{raw: r}})
}
