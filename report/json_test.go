package report_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf16"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/report"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
)

// jsonOf builds and writes the report of st and parses it back.
func jsonOf(t testing.TB, st *processor.ProcessState, pretty bool) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, report.BuildJSON(st, report.JSONOptions{}), pretty); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, buf.String())
	}
	return doc
}

func TestJSONWithoutDump(t *testing.T) {
	_, err := minidump.NewFile(bytes.NewReader([]byte("not a minidump, but long enough for a header")), 44)
	if err == nil {
		t.Fatal("a text file opened as a minidump")
	}
	doc := jsonOf(t, processor.Unreadable(err), false)
	if doc["status"] != "ERROR_NO_MINIDUMP_HEADER" {
		t.Errorf("status %v", doc["status"])
	}
	for _, k := range []string{"threads", "modules", "unloaded_modules"} {
		if v, ok := doc[k].([]any); !ok || len(v) != 0 {
			t.Errorf("%s = %v, want []", k, doc[k])
		}
	}
	if _, ok := doc["crashing_thread"]; ok {
		t.Errorf("crashing_thread present without a dump")
	}
}

// unloadedListStream encodes MINIDUMP_UNLOADED_MODULE_LIST whose entries'
// names are MINIDUMP_STRINGs inside the stream itself, which will be placed
// at file offset rva.
func unloadedListStream(rva uint32, mods []minidump.UnloadedModule) []byte {
	const hdr, entry = 12, 24
	b := make([]byte, hdr+entry*len(mods))
	binary.LittleEndian.PutUint32(b[0:], hdr)
	binary.LittleEndian.PutUint32(b[4:], entry)
	binary.LittleEndian.PutUint32(b[8:], uint32(len(mods)))
	for i, m := range mods {
		e := b[hdr+entry*i:]
		binary.LittleEndian.PutUint64(e[0:], m.Base)
		binary.LittleEndian.PutUint32(e[8:], m.Size)
		binary.LittleEndian.PutUint32(e[12:], m.Checksum)
		binary.LittleEndian.PutUint32(e[16:], m.TimeDateStamp)
		binary.LittleEndian.PutUint32(e[20:], rva+uint32(len(b)))
		u := utf16.Encode([]rune(m.Name))
		s := make([]byte, 4+2*len(u)+2)
		binary.LittleEndian.PutUint32(s, uint32(2*len(u)))
		for j, c := range u {
			binary.LittleEndian.PutUint16(s[4+2*j:], c)
		}
		b = append(b, s...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
	}
	return b
}

// TestJSONUnloadedModules rebuilds the dump of rust-minidump's "unloaded"
// test (a thread whose instruction pointer lies in no loaded module but in
// several unloaded ones) and compares the unloaded-module fields with
// rust-minidump's snapshot of it, __json-pretty-unloaded.snap. The rest of
// that snapshot reflects minidump-synth's defaults (system info), which we do
// not reproduce.
func TestJSONUnloadedModules(t *testing.T) {
	snapPath := filepath.Join(corpus.Shared(t, "corpus", "rust-minidump", "minidump-stackwalk", "tests", "snapshots"),
		"test_minidump_stackwalk__json-pretty-unloaded.snap")
	data, err := os.ReadFile(snapPath)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ { // insta header
		data = data[bytes.IndexByte(data, '\n')+1:]
	}
	var want map[string]any
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}

	const ts = 0xb1054d2a
	mods := []minidump.UnloadedModule{
		{Base: 0xa003a0, Size: 0x1000, TimeDateStamp: ts, Name: "unused.dll"},
		{Base: 0xf00000, Size: 0x1000, TimeDateStamp: ts, Name: "many.dll"},
		{Base: 0xaf00220, Size: 0x2000, TimeDateStamp: ts, Name: "solo.dll"},
		{Base: 0xf00100, Size: 0x1000, TimeDateStamp: ts, Name: "many.dll"},
		{Base: 0xf003a0, Size: 0x1000, TimeDateStamp: ts, Name: "many.dll"},
		{Base: 0xf00220, Size: 0x2000, TimeDateStamp: ts, Name: "solo.dll"},
		{Base: 0xaf00220, Size: 0x2000, TimeDateStamp: ts, Name: "solo.dll"},
		{Base: 0xf00000, Size: 0x1000, TimeDateStamp: ts, Name: "many.dll"},
	}
	build := func(rva uint32) (*synth.Builder, []byte) {
		b := synth.New(minidump.ArchX86, synth.Windows)
		ctx := minidump.NewContext(minidump.ArchX86)
		ctx.SetIP(0xf00800)
		ctx.SetSP(0x1000)
		b.AddThread(0x1234, ctx, 0x1000, make([]byte, 16))
		b.AddStream(uint32(minidump.StreamUnloadedModuleList), unloadedListStream(rva, mods))
		raw, err := b.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		return b, raw
	}
	b, _ := build(0)
	rva, _, ok := b.StreamLocation(uint32(minidump.StreamUnloadedModuleList))
	if !ok {
		t.Fatal("unloaded module stream not placed")
	}
	_, raw := build(rva) // same layout, names now at the right offsets

	f, err := minidump.NewFile(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	st, err := processor.Process(f, nil, processor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := jsonOf(t, st, true)

	if !reflect.DeepEqual(got["unloaded_modules"], want["unloaded_modules"]) {
		t.Errorf("unloaded_modules:\n got  %v\n want %v", got["unloaded_modules"], want["unloaded_modules"])
	}
	gotThreads, _ := got["threads"].([]any)
	wantThreads, _ := want["threads"].([]any)
	if len(gotThreads) != 1 || len(wantThreads) != 1 {
		t.Fatalf("threads: got %d, want %d (1)", len(gotThreads), len(wantThreads))
	}
	// The whole thread (id, frames with module null, offset, trust and the
	// per-frame unloaded_modules) must be equal.
	if !reflect.DeepEqual(gotThreads[0], wantThreads[0]) {
		g, _ := json.MarshalIndent(gotThreads[0], "", "  ")
		w, _ := json.MarshalIndent(wantThreads[0], "", "  ")
		t.Errorf("thread:\n got  %s\n want %s", g, w)
	}
	for _, k := range []string{"modules", "main_module", "thread_count", "crash_info"} {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Errorf("%s: got %v, want %v", k, got[k], want[k])
		}
	}
}

// FuzzBuildJSON checks that any input yields valid JSON listing every
// thread the dump's thread list yields, and never panics.
func FuzzBuildJSON(f *testing.F) {
	seedDir := filepath.Join("..", "..", "shared", "corpus", "rust-minidump", "testdata")
	for _, n := range []string{"test.dmp", "linux-mini.dmp", "invalid-range.dmp", "invalid-record-count.dmp"} {
		if data, err := os.ReadFile(filepath.Join(seedDir, n)); err == nil {
			f.Add(data)
		}
	}
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.AddThread(1, minidump.NewContext(minidump.ArchAMD64), 0x1000, make([]byte, 64))
	if data, err := b.Bytes(); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		st, _ := processor.Process(file, nil, processor.Options{MaxFrames: 64, Workers: 1})
		doc := jsonOf(t, st, false)
		threads, _ := file.Threads()
		if got, _ := doc["threads"].([]any); len(got) != len(threads) {
			t.Fatalf("%d threads in the JSON, %d in the dump", len(got), len(threads))
		}
	})
}

// BenchmarkJSON measures building and writing the JSON report of the
// macOS inlines dump (11 threads, 8 frames with inlines in the crashed one),
// processed once with its symbols.
func BenchmarkJSON(b *testing.B) {
	dir := corpus.Shared(b, "corpus", "rust-minidump", "testdata")
	f, err := minidump.Open(filepath.Join(dir, "pipeline-inlines-macos-segv.dmp"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, err := processor.Process(f, symcompress.NewDirSupplier(filepath.Join(dir, "symbols")), processor.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := report.WriteJSON(io.Discard, report.BuildJSON(st, report.JSONOptions{}), true); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseEvilJSON(t *testing.T) {
	got, err := report.ParseEvilJSON([]byte(`{"ModuleSignatureInfo": "{\"B corp\": [\"b.dll\", \"x.dll\"], \"A corp\": [\"a.dll\", \"x.dll\"]}", "Other": 1}`))
	want := map[string]string{"a.dll": "A corp", "b.dll": "B corp", "x.dll": "A corp"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	if got, err := report.ParseEvilJSON([]byte(`{}`)); err != nil || len(got) != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
	for _, bad := range []string{``, `[]`, `{"ModuleSignatureInfo": 3}`, `{"ModuleSignatureInfo": "not json"}`, `{"ModuleSignatureInfo": "{\"a\": 1}"}`} {
		if _, err := report.ParseEvilJSON([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
