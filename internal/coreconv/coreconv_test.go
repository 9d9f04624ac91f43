package coreconv

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
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

func TestParseModule(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want Module
	}{
		{"/usr/bin/prog", Module{Path: "/usr/bin/prog"}},
		{"/usr/bin/prog@0x400000", Module{Path: "/usr/bin/prog", Base: 0x400000, HasBase: true}},
		{"prog@5000", Module{Path: "prog", Base: 0x5000, HasBase: true}},
	} {
		got, err := ParseModule(tc.arg)
		if err != nil || got != tc.want {
			t.Errorf("ParseModule(%q) = %+v, %v; want %+v", tc.arg, got, err, tc.want)
		}
	}
	if _, err := ParseModule("prog@0xzz"); err == nil {
		t.Error("ParseModule accepted a bad base address")
	}
}

// The kernel- and gdb-written cores of testdata/cores convert byte for byte
// into the dumps of testdata/dumps, which core2md wrote with -stack-limit
// 65536 and whose Breakpad and gdb walks are in testdata/oracle. qemu cores
// are left out: their dumps were converted with --module (see cmd/core2md's
// tests).
func TestConvertEqualsTestdata(t *testing.T) {
	for _, name := range []string{"amd64-fp", "amd64-threads", "x86-libc", "x86-threads"} {
		t.Run(name, func(t *testing.T) {
			raw := corpus.TestdataCore(t, name)
			core, err := coredump.NewFile(bytes.NewReader(raw), int64(len(raw)))
			if err != nil {
				t.Fatal(err)
			}
			opt := DefaultOptions()
			opt.StackLimit = 64 << 10
			opt.NoDisk = true
			got, err := Convert(core, opt)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(corpus.Testdata(t, "dumps", name+".dmp"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("converted dump (%d bytes) differs from testdata/dumps/%s.dmp (%d bytes)", len(got), name, len(want))
			}
		})
	}
}
