package minidump

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// exercise calls every accessor and reads memory, as a consumer would. It
// returns the number of errors seen; it must never panic or hang.
func exercise(f *File) int {
	nerr := 0
	count := func(err error) {
		if err != nil {
			nerr++
		}
	}
	_ = f.Streams()
	si, err := f.SystemInfo()
	count(err)
	if si != nil {
		_ = si.OS() + si.OSVersion() + si.CPU() + si.CPUInfo()
	}
	_, err = f.MiscInfo()
	count(err)
	_, _ = f.ProcessUptime()
	_, err = f.BreakpadInfo()
	count(err)
	_, err = f.AssertionInfo()
	count(err)
	_ = f.Assertion()
	ex, err := f.Exception()
	count(err)
	_ = CrashReason(si, ex)
	_ = CrashAddress(si, ex)
	threads, err := f.Threads()
	count(err)
	_, err = f.ThreadNames()
	count(err)
	roles := f.ThreadRoles()
	_, _ = roles.ProcessedThreads(threads)
	mods, err := f.Modules()
	count(err)
	if si != nil {
		_, _ = BreakpadModuleRanges(mods, si.Platform)
	}
	_ = MainModule(mods)
	_, err = f.UnloadedModules()
	count(err)
	mem, err := f.Memory()
	count(err)
	var buf [64]byte
	for _, th := range threads {
		_, err = f.StackBytes(&th)
		count(err)
		count(mem.ReadMemory(th.Stack.Start, buf[:]))
		if th.Context != nil {
			sp, _ := th.Context.SP()
			count(mem.ReadMemory(sp, buf[:8]))
		}
	}
	for i, r := range mem.Regions() {
		if i > 64 {
			break
		}
		_, err = r.Bytes()
		count(err)
		count(mem.ReadMemory(r.Base+r.Size-4, buf[:8])) // straddles the end
	}
	_, err = f.MemoryInfo()
	count(err)
	_, err = f.HandleData()
	count(err)
	_, err = f.CPUInfoText()
	count(err)
	_, err = f.ProcStatus()
	count(err)
	_, err = f.LSBRelease()
	count(err)
	_, err = f.CmdLine()
	count(err)
	_, err = f.Environ()
	count(err)
	_, err = f.Auxv()
	count(err)
	_, err = f.Maps()
	count(err)
	_, err = f.MapsRegions()
	count(err)
	_, err = f.ProcLimits()
	count(err)
	_, err = f.ExceptionARMCPSR()
	count(err)
	for i := range threads {
		_, _ = ThreadLastError(&threads[i], mem, 4)
		_, _ = ThreadLastError(&threads[i], mem, 8)
	}
	_, err = f.DSODebug()
	count(err)
	_, err = f.CrashpadInfo()
	count(err)
	_, err = f.MacCrashInfo()
	count(err)
	_, err = f.MozSoftErrors()
	count(err)
	_, err = f.MacBootArgs()
	count(err)
	return nerr
}

// checkErrors requires that parse errors other than absent streams carry a
// FormatError naming the stream and offset.
func checkFormatError(t *testing.T, err error) {
	t.Helper()
	if err == nil || errors.Is(err, ErrNoStream) {
		return
	}
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Stream == "" {
		t.Errorf("error without stream/offset: %v", err)
	}
	if !strings.Contains(err.Error(), "offset 0x") {
		t.Errorf("error text lacks the offset: %v", err)
	}
}

func TestMalformedRustMinidump(t *testing.T) {
	dir := corpus.Shared(t, "corpus", "rust-minidump", "testdata")
	for _, name := range []string{"invalid-range.dmp", "invalid-record-count.dmp"} {
		f, err := Open(filepath.Join(dir, name))
		if err != nil {
			checkFormatError(t, err)
			continue
		}
		exercise(f)
		_, err = f.MacCrashInfo()
		checkFormatError(t, err)
		_, err = f.Threads()
		checkFormatError(t, err)
		_, err = f.Memory()
		checkFormatError(t, err)
		f.Close()
	}
	// invalid-record-count.dmp has a macOS crash info stream whose record
	// count is out of range: it must be an error, not a panic or a huge read.
	f, err := Open(filepath.Join(dir, "invalid-record-count.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.MacCrashInfo(); err == nil {
		t.Error("invalid-record-count.dmp: MacCrashInfo accepted a bad record count")
	}
}

func TestNotAMinidump(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("MDMP"), []byte("hello, world, this is not a minidump at all"),
		bytes.Repeat([]byte{0xff}, 100), []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")} {
		_, err := NewFile(bytes.NewReader(b), int64(len(b)))
		var fe *FormatError
		if err == nil || !errors.As(err, &fe) || fe.Stream != "header" {
			t.Errorf("%q: err = %v, want a header FormatError", b, err)
		}
	}
	p := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(p); err == nil {
		t.Error("empty file opened")
	}
}

// synthHeader builds a dump with one stream of the given type and bytes.
func synthDump(streams map[StreamType][]byte, tail []byte) []byte {
	var b bytes.Buffer
	n := uint32(len(streams))
	hdr := make([]byte, 32)
	binary.LittleEndian.PutUint32(hdr, Signature)
	binary.LittleEndian.PutUint32(hdr[4:], 0xa793)
	binary.LittleEndian.PutUint32(hdr[8:], n)
	binary.LittleEndian.PutUint32(hdr[12:], 32)
	b.Write(hdr)
	off := 32 + 12*n
	var data bytes.Buffer
	dir := make([]byte, 0, 12*n)
	for _, t := range []StreamType{StreamThreadList, StreamModuleList, StreamMemoryList, StreamException, StreamSystemInfo,
		StreamMemory64List, StreamHandleData, StreamUnloadedModuleList, StreamMiscInfo, StreamMemoryInfoList,
		StreamThreadNameList, StreamCrashpadInfo, StreamLinuxDSODebug, StreamMozMacOSCrashInfo} {
		s, ok := streams[t]
		if !ok {
			continue
		}
		dir = binary.LittleEndian.AppendUint32(dir, uint32(t))
		dir = binary.LittleEndian.AppendUint32(dir, uint32(len(s)))
		dir = binary.LittleEndian.AppendUint32(dir, off+uint32(data.Len()))
		data.Write(s)
	}
	b.Write(dir)
	b.Write(data.Bytes())
	b.Write(tail)
	return b.Bytes()
}

func u32s(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

// TestHugeCounts: counts that would need far more memory than the file holds
// give errors quickly, without allocating for the claimed count.
func TestHugeCounts(t *testing.T) {
	big := u32s(0xffffffff, 0, 0, 0, 0, 0, 0, 0)
	streams := map[StreamType][]byte{
		StreamThreadList:         big,
		StreamModuleList:         big,
		StreamMemoryList:         big,
		StreamThreadNameList:     big,
		StreamMemory64List:       u32s(0xffffffff, 0xffffffff, 0x100, 0, 0x1000, 0, 0x10000000, 0),
		StreamHandleData:         u32s(16, 32, 0xffffffff, 0),
		StreamUnloadedModuleList: u32s(12, 24, 0xffffffff),
		StreamMemoryInfoList:     u32s(16, 48, 0xffffffff, 0xffffffff),
		StreamCrashpadInfo:       append(make([]byte, 36), u32s(8, 200, 12, 200)...),
		StreamLinuxDSODebug:      u32s(1, 0, 0xffffffff, 0, 0, 0, 0, 0, 0, 0),
		StreamMozMacOSCrashInfo:  u32s(0x4d7a0001, 0xffffffff, 36),
	}
	data := synthDump(streams, u32s(0xffffffff, 0xffffffff))
	start := time.Now()
	f, err := NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if n := exercise(f); n < 10 {
		t.Errorf("only %d errors from hostile counts", n)
	}
	for _, get := range []func() error{
		func() error { _, err := f.Threads(); return err },
		func() error { _, err := f.Modules(); return err },
		func() error { _, err := f.Memory(); return err },
		func() error { _, err := f.ThreadNames(); return err },
		func() error { _, err := f.HandleData(); return err },
		func() error { _, err := f.UnloadedModules(); return err },
		func() error { _, err := f.MemoryInfo(); return err },
		func() error { _, err := f.DSODebug(); return err },
		func() error { _, err := f.MacCrashInfo(); return err },
	} {
		err := get()
		if err == nil {
			t.Error("hostile count accepted")
		}
		checkFormatError(t, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	// Directory count beyond the file.
	hdr := synthDump(nil, nil)
	binary.LittleEndian.PutUint32(hdr[8:], 0x7fffffff)
	_, err = NewFile(bytes.NewReader(hdr), int64(len(hdr)))
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Stream != "directory" {
		t.Errorf("huge directory: %v", err)
	}
}

// truncationLengths gives the prefix lengths to test. For dumps under 64 KiB
// that is every length, except inside blocks the parser reads as a whole
// (stream bodies, thread contexts) or never interprets (stack and memory
// contents): there a cut anywhere has the same effect, so the block's edges
// ±16 and a stride of 64 stand in for every byte. Larger dumps get stream and region edges
// ±16 bytes plus a stride of 1/512 of the file.
func truncationLengths(data []byte, f *File) []int {
	n := len(data)
	type span struct{ lo, hi int }
	var raw []span
	if mem, err := f.Memory(); err == nil || mem != nil {
		for _, r := range mem.Regions() {
			raw = append(raw, span{int(r.Off), int(r.Off) + int(r.Size)})
		}
	}
	if threads, _ := f.Threads(); threads != nil {
		for _, th := range threads {
			raw = append(raw, span{int(th.Stack.Off), int(th.Stack.Off) + int(th.Stack.Size)})
			// A context is read whole: only its edges matter too.
			raw = append(raw, span{int(th.ContextOff), int(th.ContextOff) + int(th.ContextSize)})
		}
	}
	// Stream bodies are read whole too; what they point to (strings, debug
	// records, dictionaries) lies outside them and gets every length.
	for _, st := range f.dir {
		raw = append(raw, span{int(st.Off), int(st.Off) + int(st.Size)})
	}
	seen := map[int]bool{}
	var out []int
	add := func(l int) {
		if l >= 0 && l < n && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	edges := []int{32, 32 + 12*len(f.dir)}
	for _, s := range f.dir {
		edges = append(edges, int(s.Off), int(s.Off)+int(s.Size))
	}
	for _, r := range raw {
		edges = append(edges, r.lo, r.hi)
	}
	for _, e := range edges {
		for d := -16; d <= 16; d++ {
			add(e + d)
		}
	}
	stride := max(n/512, 1)
	if n < 64<<10 {
		stride = 64
	next:
		for l := 0; l < n; l++ {
			for _, r := range raw {
				if l > r.lo && l < r.hi {
					continue next
				}
			}
			add(l)
		}
	}
	for l := 0; l < n; l += stride {
		add(l)
	}
	return out
}

func TestTruncatedCorpus(t *testing.T) {
	corpus.Shared(t, "corpus")
	start := time.Now()
	var total atomic.Int64
	t.Run("dumps", func(t *testing.T) {
		for _, path := range allDumps(t) {
			t.Run(filepath.Base(path), func(t *testing.T) {
				t.Parallel()
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				full, err := NewFile(bytes.NewReader(data), int64(len(data)))
				if err != nil {
					if !strings.Contains(path, "invalid-") {
						t.Error(err)
					}
					return
				}
				for _, l := range truncationLengths(data, full) {
					// The memory-mapped form: no copies, as Open reads.
					f, err := newFile(byteReaderAt(data[:l]), data[:l], int64(l))
					total.Add(1)
					if err != nil {
						checkFormatError(t, err)
						continue
					}
					exercise(f)
				}
			})
		}
	})
	t.Logf("%d truncated files in %v", total.Load(), time.Since(start))
}
