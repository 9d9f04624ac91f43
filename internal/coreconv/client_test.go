package coreconv

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// TestShapeTestdataDumps shapes every testdata dump as each client and
// checks, against the original dump read independently: every region of
// the twin lies in a thread's stack or in a window the client keeps around
// the crashing context and holds the original's bytes; every original
// byte inside those ranges is in the twin; the stacks and every other
// stream are unchanged.
func TestShapeTestdataDumps(t *testing.T) {
	dumps, _ := filepath.Glob(corpus.Testdata(t, "dumps", "*.dmp"))
	if len(dumps) < 40 {
		t.Fatalf("only %d testdata dumps", len(dumps))
	}
	for _, path := range dumps {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		orig := openDump(t, data)
		for _, like := range []string{"breakpad", "crashpad", "stacks"} {
			c, err := ParseClient(like)
			if err != nil {
				t.Fatal(err)
			}
			twinData, err := Shape(data, c)
			if err != nil {
				t.Fatalf("%s --like %s: %v", path, like, err)
			}
			checkTwin(t, filepath.Base(path)+" "+like, orig, openDump(t, twinData), c)
		}
	}
}

func openDump(t *testing.T, data []byte) *minidump.File {
	t.Helper()
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func checkTwin(t *testing.T, name string, orig, twin *minidump.File, c Client) {
	keep, err := clientKeep(orig, c)
	if err != nil {
		t.Fatal(err)
	}
	inKeep := func(lo, hi uint64) bool {
		for _, k := range keep {
			if lo >= k.lo && hi <= k.hi {
				return true
			}
		}
		return false
	}
	om, err := orig.Memory()
	if err != nil {
		t.Fatal(err)
	}
	tm, err := twin.Memory()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var twinBytes uint64
	for _, r := range tm.Regions() {
		if !inKeep(r.Base, r.End()) {
			t.Errorf("%s: region [%#x, %#x) outside what the client keeps", name, r.Base, r.End())
		}
		got, _ := r.Bytes()
		want := make([]byte, len(got))
		if err := om.ReadMemory(r.Base, want); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: region at %#x differs from the original (%v)", name, r.Base, err)
		}
		twinBytes += r.Size
	}
	var wantBytes uint64
	for _, r := range om.Regions() {
		for _, k := range keep {
			if lo, hi := max(r.Base, k.lo), min(r.End(), k.hi); lo < hi {
				wantBytes += hi - lo
			}
		}
	}
	if twinBytes != wantBytes {
		t.Errorf("%s: twin holds %d bytes, the original %d inside the client's ranges", name, twinBytes, wantBytes)
	}
	ot, _ := orig.Threads()
	tt, err := twin.Threads()
	if err != nil || len(tt) != len(ot) {
		t.Fatalf("%s: threads %d, want %d (%v)", name, len(tt), len(ot), err)
	}
	for i := range ot {
		if ot[i].Stack != tt[i].Stack {
			t.Errorf("%s: thread %d stack %+v, was %+v", name, i, tt[i].Stack, ot[i].Stack)
		}
	}
	if c == ClientBreakpad {
		e, err := orig.Exception()
		if err != nil || e.Context == nil {
			t.Fatalf("%s: no exception context (%v)", name, err)
		}
		if ip, ok := e.Context.IP(); ok {
			if _, ok := tm.Region(ip); !ok {
				t.Errorf("%s: no memory at the crash address %#x", name, ip)
			}
		}
	}
}

func TestShapeRejectsBadDumps(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("MDMP"), bytes.Repeat([]byte{0xff}, 64)} {
		if _, err := Shape(data, ClientBreakpad); err == nil {
			t.Errorf("Shape(%q) succeeded", data)
		}
	}
}

func FuzzShape(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "dumps", "amd64-fp.dmp")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Shape(data, ClientCrashpad)
		if err == nil && len(out) < len(data) {
			t.Fatalf("shaped dump shorter than its input")
		}
	})
}

// TestLikeCrashpadFromCore converts a kept core (qemu-aarch64's, with the
// kept program as its module, as gen.sh converts it) as Crashpad's client:
// it holds all the Crashpad twin of the corpus dump holds, and the full
// 512-byte window around the crashing pc (from the program file).
func TestLikeCrashpadFromCore(t *testing.T) {
	core := openCore(t, "arm64-fp")
	prog := filepath.Join(t.TempDir(), "crashdemo")
	if err := os.WriteFile(prog, corpus.ReadZstd(t, corpus.Testdata(t, "cores", "arm64-crashdemo.zst")), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.Modules = []Module{{Path: prog}}
	opt.Like = ClientCrashpad
	data, err := Convert(core, opt)
	if err != nil {
		t.Fatal(err)
	}
	fromCore := openDump(t, data)
	dump, err := os.ReadFile(corpus.Testdata(t, "dumps", "arm64-fp.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	shaped, err := Shape(dump, ClientCrashpad)
	if err != nil {
		t.Fatal(err)
	}
	small, _ := openDump(t, shaped).Memory()
	big, err := fromCore.Memory()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range small.Regions() {
		want, _ := r.Bytes()
		got := make([]byte, len(want))
		if err := big.ReadMemory(r.Base, got); err != nil || !bytes.Equal(got, want) {
			t.Errorf("region [%#x, %#x) of the shaped dump not in the core's twin (%v)", r.Base, r.End(), err)
		}
	}
	e, err := fromCore.Exception()
	if err != nil || e.Context == nil {
		t.Fatal(err)
	}
	pc, _ := e.Context.IP()
	if err := big.ReadMemory(pc-128, make([]byte, 512)); err != nil {
		t.Errorf("no 512 bytes from pc-128 (%#x): %v", pc-128, err)
	}
}

func openCore(t *testing.T, name string) *coredump.File {
	t.Helper()
	raw := corpus.TestdataCore(t, name)
	core, err := coredump.NewFile(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return core
}
