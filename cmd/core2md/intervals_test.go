package main

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
)

func TestUnionSubtract(t *testing.T) {
	u := union([]interval{{30, 40}, {0, 10}, {5, 20}, {20, 25}})
	if want := []interval{{0, 25}, {30, 40}}; !reflect.DeepEqual(u, want) {
		t.Errorf("union = %v, want %v", u, want)
	}
	for _, tc := range []struct {
		w    interval
		want []interval
	}{
		{interval{0, 50}, []interval{{25, 30}, {40, 50}}},
		{interval{26, 28}, []interval{{26, 28}}},
		{interval{2, 8}, nil},
		{interval{22, 35}, []interval{{25, 30}}},
	} {
		if got := subtract(tc.w, u); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("subtract(%v) = %v, want %v", tc.w, got, tc.want)
		}
	}
}

// FuzzConvert runs the whole conversion on mutated cores: it must return a
// dump or an error, within the memory bound.
func FuzzConvert(f *testing.F) {
	f.Add(tinyCore(0x401000, 0x7ffc0000, 9, 0x401000))
	for _, name := range []string{"x86-threads", "arm64-fp"} {
		raw := readCore(f, name)
		f.Add(raw[:min(len(raw), 8192)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		core, err := coredump.NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		opt := defaultOptions
		opt.MaxMemory = 1 << 20
		_, _ = convert(core, opt)
	})
}
