package stackwalk

import (
	"bytes"
	"os"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/input"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// OpenWith converts a core with core2md's conversion (internal/coreconv), with the
// options the testdata dumps were written with (-stack-limit 65536) and,
// by default, no module file read from disk. A core written by gdb holds
// its programs' text, so its conversion is core2md's dump byte for byte; a
// kernel-written core holds none (the default coredump_filter), and core2md
// read the code around instruction pointers and return addresses from the
// program file, which testdata does not keep for amd64 and x86: there every
// stream but the memory list is core2md's, and the memory is core2md's less
// regions inside the program. qemu cores are left out: their dumps were
// converted with --module naming the program, which OpenWith does not
// offer.
func TestCoreConversionIsCore2md(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hasText bool // written by gdb (testdata/cases.txt)
	}{{"amd64-fp", false}, {"amd64-threads", true}, {"x86-libc", true}, {"x86-threads", false}} {
		t.Run(tc.name, func(t *testing.T) {
			opt := coreOptions("")
			opt.StackLimit = 64 << 10
			// The compressed core, decompressed into a temporary file.
			in, err := input.Open(corpus.Testdata(t, "cores", tc.name+".core.zst"), nil, input.Options{})
			if err != nil || in.Kind != input.ELFCore {
				t.Fatalf("input.Open: %+v, %v", in, err)
			}
			defer in.Close()
			got, err := convertCore(in, opt)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(corpus.Testdata(t, "dumps", tc.name+".dmp"))
			if err != nil {
				t.Fatal(err)
			}
			if tc.hasText {
				if !bytes.Equal(got, want) {
					t.Errorf("converted dump (%d bytes) differs from core2md's testdata/dumps/%s.dmp (%d bytes)", len(got), tc.name, len(want))
				}
				return
			}
			compareLessProgramCode(t, got, want)
		})
	}
}

// compareLessProgramCode checks that got has want's streams, each with the
// same bytes but the memory list, and want's memory less some regions
// inside the program (the first module).
func compareLessProgramCode(t *testing.T, gotData, wantData []byte) {
	t.Helper()
	got, want := openDumpBytes(t, gotData), openDumpBytes(t, wantData)
	gs, ws := got.Streams(), want.Streams()
	if len(gs) != len(ws) {
		t.Fatalf("%d streams, core2md's dump has %d", len(gs), len(ws))
	}
	for i, w := range ws {
		g := gs[i]
		if g.Type != w.Type {
			t.Fatalf("stream %d is %s, core2md's is %s", i, g.Name, w.Name)
		}
		if w.Type != minidump.StreamMemoryList && !bytes.Equal(streamBytes(gotData, g), streamBytes(wantData, w)) {
			t.Errorf("%s differs from core2md's", w.Name)
		}
	}
	modules, err := want.Modules()
	if err != nil || len(modules) == 0 {
		t.Fatalf("core2md's dump: modules %v, %v", modules, err)
	}
	program := modules[0]
	gm, wm := dumpMemory(t, got), dumpMemory(t, want)
	for _, r := range gm.Regions() {
		b, _ := r.Bytes()
		w := make([]byte, len(b))
		if err := wm.ReadMemory(r.Base, w); err != nil || !bytes.Equal(b, w) {
			t.Errorf("region [%#x,%#x) is not core2md's (%v)", r.Base, r.End(), err)
		}
	}
	missing := 0
	for _, r := range wm.Regions() {
		if _, ok := gm.Region(r.Base); ok {
			continue
		}
		missing++
		if r.Base < program.Base || r.End() > program.End() {
			t.Errorf("core2md's region [%#x,%#x) is missing and not in the program %s", r.Base, r.End(), program.Name)
		}
	}
	if missing == 0 {
		t.Errorf("no region of the program is missing: the core holds the program's text after all?")
	}
}

func openDumpBytes(t *testing.T, data []byte) *minidump.File {
	t.Helper()
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func dumpMemory(t *testing.T, f *minidump.File) *minidump.MemoryList {
	t.Helper()
	m, err := f.Memory()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// streamBytes returns the bytes of stream s of the dump data (which
// minidump.NewFile has checked lie inside it).
func streamBytes(data []byte, s minidump.StreamInfo) []byte {
	return data[s.Off : s.Off+int64(s.Size)]
}
