package input

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/microdump"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

func gzipped(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func xzed(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	w, err := xz.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstded(t testing.TB, data []byte) []byte {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// content is what in holds apart from the file it names: its Data, or its
// temporary file's bytes; nil when neither.
func content(t *testing.T, in *Input) []byte {
	t.Helper()
	if in.Data != nil {
		return in.Data
	}
	if in.File == nil {
		return nil
	}
	b, err := io.ReadAll(io.NewSectionReader(in.File, 0, in.Size))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Real files of every kind, plain and compressed, are told by content
// whatever their names; the content of a compressed one is the original.
func TestOpenRealFiles(t *testing.T) {
	dump := readFile(t, corpus.Testdata(t, "dumps", "amd64-fp.dmp"))
	core := corpus.TestdataCore(t, "amd64-fp")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	program := readFile(t, exe)
	for _, tc := range []struct {
		name        string
		data        []byte
		kind        Kind
		compression Kind
		content     []byte // in its temporary file, when decompressed
	}{
		{"plain.dmp", dump, Minidump, Unknown, nil},
		{"x.dmp.gz", gzipped(t, dump), Minidump, Gzip, dump},
		{"x.txt", zstded(t, dump), Minidump, Zstd, dump},
		{"x.dmp.xz", xzed(t, dump), Minidump, Xz, dump},
		{"core", core, ELFCore, Unknown, nil},
		{"core.zst", zstded(t, core), ELFCore, Zstd, core},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Open(write(t, tc.name, tc.data), nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if in.Kind != tc.kind || in.Compression != tc.compression {
				t.Errorf("kind %v, compression %v; want %v, %v", in.Kind, in.Compression, tc.kind, tc.compression)
			}
			defer in.Close()
			if got := content(t, in); !bytes.Equal(got, tc.content) {
				t.Errorf("content: %d bytes, want %d", len(got), len(tc.content))
			}
		})
	}
	// What is not a dump is said, compressed or not.
	for _, tc := range []struct {
		name        string
		data        []byte
		kind        Kind
		compression Kind
		says        string
	}{
		{"empty.dmp", nil, Empty, Unknown, "an empty file"},
		{"notes.dmp", []byte("crash at 0x1234\nsee attached\n"), Text, Unknown, "text without a microdump"},
		{"program.dmp", program, ELF, Unknown, "not a core"},
		{"random.dmp", []byte{0, 1, 2, 3, 0xff, 0xfe, 0, 0}, Unknown, Unknown, "no known format"},
		{"program.gz", gzipped(t, program[:4096]), ELF, Gzip, "gzip-compressed data holding an ELF file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, tc.name, tc.data)
			in, err := Open(path, nil, Options{})
			var nd *NotADumpError
			if !errors.As(err, &nd) || in == nil || in.Kind != tc.kind || in.Compression != tc.compression {
				t.Fatalf("Open = %+v, %v; want kind %v (compression %v) and a NotADumpError", in, err, tc.kind, tc.compression)
			}
			if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, tc.says) {
				t.Errorf("error %q names neither %s nor %q", msg, path, tc.says)
			}
		})
	}
}

// A plain minidump up to WholeBytes is read once, into Input.Whole; a
// larger one, and every other kind, is left to the caller's open.
func TestOpenReadsSmallDumpWhole(t *testing.T) {
	dump := readFile(t, corpus.Testdata(t, "dumps", "amd64-fp.dmp"))
	big := make([]byte, WholeBytes+1)
	copy(big, dump)
	core := corpus.TestdataCore(t, "amd64-fp")
	for _, tc := range []struct {
		name  string
		data  []byte
		whole bool
	}{
		{"small.dmp", dump, true},
		{"big.dmp", big, false},
		{"x.dmp.gz", gzipped(t, dump), false},
		{"core", core, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Open(write(t, tc.name, tc.data), nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if tc.whole != (in.Whole != nil) || tc.whole && !bytes.Equal(in.Whole, tc.data) {
				t.Errorf("Whole: %d bytes, want the file's %d: %v", len(in.Whole), len(tc.data), tc.whole)
			}
			if in.Whole != nil && (in.Kind != Minidump || in.File != nil) {
				t.Errorf("kind %v, File %v; want a minidump without a temporary file", in.Kind, in.File)
			}
		})
	}
}

// "-" reads standard input, which may be compressed too.
func TestOpenStdin(t *testing.T) {
	dump := readFile(t, corpus.Testdata(t, "dumps", "amd64-fp.dmp"))
	for _, data := range [][]byte{dump, gzipped(t, dump)} {
		in, err := Open("-", bytes.NewReader(data), Options{})
		if err != nil || in.Kind != Minidump || !bytes.Equal(content(t, in), dump) {
			t.Errorf("Open(-) = %+v, %v", in, err)
		}
		in.Close()
	}
	// Compressed input longer than the head that tells its kind is
	// copied whole before it is decompressed.
	big := make([]byte, 256<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	copy(big, "MDMP\x93\xa7")
	for _, packed := range [][]byte{gzipped(t, big), zstded(t, big), xzed(t, big)} {
		in, err := Open("-", bytes.NewReader(packed), Options{})
		if err != nil || in.Kind != Minidump || !bytes.Equal(content(t, in), big) {
			t.Errorf("Open(-) of %d compressed bytes = %+v, %v", len(packed), in, err)
		}
		in.Close()
	}
	// A pipe named by path (/dev/stdin in a shell pipeline) is a stream too.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.Write(dump)
		w.Close()
	}()
	defer r.Close()
	in, err := Open("/dev/fd/"+strconv.Itoa(int(r.Fd())), nil, Options{})
	if err != nil || in.Kind != Minidump || !bytes.Equal(content(t, in), dump) {
		t.Errorf("Open(pipe) = kind %v, %v", in.Kind, err)
	}
	in.Close()
}

// A microdump as Breakpad's tests keep it (a logcat excerpt, binary-looking
// name), plain or compressed, is told by content.
func TestOpenMicrodump(t *testing.T) {
	path := filepath.Join(corpus.Shared(t, "corpus", "breakpad", "microdumps"), "microdump-arm64.dmp")
	micro := readFile(t, path)
	for _, data := range [][]byte{micro, gzipped(t, micro)} {
		in, err := Open(write(t, "m.dmp", data), nil, Options{})
		if err != nil || in.Kind != Microdump || !bytes.Equal(in.Data, micro) {
			t.Errorf("Open = %+v, %v; want the microdump", in, err)
		}
	}
}

// Inputs held in memory are bounded: a compression bomb, stdin, and a
// truncated or nested compressed file each give an *Error with the name
// and the offset reached, never more memory than the limit.
func TestOpenBounds(t *testing.T) {
	zeros := make([]byte, 64<<20)
	copy(zeros, "MDMP\x93\xa7") // read to the bound, as a dump
	bomb := gzipped(t, zeros)   // 64 MiB in ~64 KB
	path := write(t, "bomb.dmp.gz", bomb)
	_, err := Open(path, nil, Options{MaxBytes: 1 << 20})
	var ie *Error
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &ie) || ie.Name != path {
		t.Errorf("bomb: %v; want ErrTooLarge naming %s", err, path)
	}
	if _, err := Open("-", bytes.NewReader(make([]byte, 2048)), Options{MaxBytes: 1024}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("stdin over the limit: %v", err)
	}
	dump := readFile(t, corpus.Testdata(t, "dumps", "amd64-fp.dmp"))
	gz := gzipped(t, dump)
	path = write(t, "cut.dmp.gz", gz[:len(gz)/2])
	if _, err := Open(path, nil, Options{}); !errors.As(err, &ie) || ie.Offset == 0 || !strings.Contains(err.Error(), path) {
		t.Errorf("truncated gzip: %v; want an *Error with the offset reached", err)
	}
	path = write(t, "twice.dmp.gz.gz", gzipped(t, gz))
	if _, err := Open(path, nil, Options{}); err == nil || !strings.Contains(err.Error(), "one level") {
		t.Errorf("nested compression: %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.dmp"), nil, Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestSniffText(t *testing.T) {
	for _, tc := range []struct {
		data []byte
		want Kind
	}{
		{[]byte("héllo\n"), Text},
		{[]byte("h\xc3"), Text}, // a rune cut at the end of the head
		{[]byte("a\x00b"), Unknown},
		{[]byte("a\xffb"), Unknown},
		{[]byte("\x1b[31m"), Unknown},
	} {
		if got := Sniff(tc.data); got != tc.want {
			t.Errorf("Sniff(%q) = %v, want %v", tc.data, got, tc.want)
		}
	}
}

// SniffFile tells a file's kind from its first bytes, decompressed when it
// is compressed, as directory scans need it.
func TestSniffFile(t *testing.T) {
	dump := readFile(t, corpus.Testdata(t, "dumps", "amd64-fp.dmp"))
	for _, tc := range []struct {
		data              []byte
		kind, compression Kind
	}{
		{dump, Minidump, Unknown},
		{xzed(t, dump), Minidump, Xz},
		{zstded(t, corpus.TestdataCore(t, "amd64-fp")), ELFCore, Zstd},
		{gzipped(t, []byte("MODULE Linux x86_64 ABC crashdemo\n")), Text, Gzip},
		{[]byte("I/google-breakpad(1): -----BEGIN BREAKPAD MICRODUMP-----\n"), Microdump, Unknown},
		{[]byte{0x1f, 0x8b, 8, 0}, Unknown, Gzip}, // a cut gzip header
	} {
		kind, compression, err := SniffFile(write(t, "f", tc.data))
		if kind != tc.kind || compression != tc.compression || (err != nil) != (tc.kind == Unknown) {
			t.Errorf("%q...: %v, %v, %v; want %v, %v", tc.data[:min(len(tc.data), 8)], kind, compression, err, tc.kind, tc.compression)
		}
	}
}

// A compression bomb in each format, and a stream on standard input, past
// the bound are refused with an error naming the input and the bound,
// having written at most the bound to the temporary file and held only a
// small buffer in memory. They start as a minidump, so that they are read
// to the bound.
func TestOpenBombsStreamed(t *testing.T) {
	const limit = 1 << 20
	zeros := make([]byte, 32*limit)
	copy(zeros, "MDMP\x93\xa7")
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"bomb.dmp.gz", gzipped(t, zeros)},
		{"bomb.dmp.zst", zstded(t, zeros)},
		{"bomb.dmp.xz", xzed(t, zeros)},
		{"-", zeros},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.name
			var stdin io.Reader
			if path == "-" {
				stdin = bytes.NewReader(tc.data)
			} else {
				path = write(t, tc.name, tc.data)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			in, err := Open(path, stdin, Options{MaxBytes: limit})
			runtime.ReadMemStats(&after)
			var ie *Error
			if in != nil || !errors.Is(err, ErrTooLarge) || !errors.As(err, &ie) {
				t.Fatalf("Open = %+v, %v; want ErrTooLarge in an *Error", in, err)
			}
			name := path
			if path == "-" {
				name = "standard input"
			}
			if msg := err.Error(); !strings.Contains(msg, name) || !strings.Contains(msg, "1 MiB") {
				t.Errorf("error %q names neither %s nor the bound", msg, name)
			}
			// The decoders' own state (gzip's 32 KiB window, the 8 MiB
			// windows zstd's and xz's encoders chose) and the copy
			// buffer, not the content.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 12<<20 {
				t.Errorf("%d bytes allocated to refuse %d bytes over a %d bound", alloc, len(zeros), limit)
			}
		})
	}
}

// A stream whose head is no dump nor text is not copied past its head: a
// bomb of zeros is refused at once, without decompressing it to the bound.
func TestOpenNoDumpStopsAtHead(t *testing.T) {
	zeros := make([]byte, 8<<20)
	for _, tc := range []struct {
		name  string
		data  []byte
		stdin bool
	}{
		{"zeros.dmp.zst", zstded(t, zeros), false},
		{"-", zeros, true},
	} {
		path := tc.name
		var stdin io.Reader
		if tc.stdin {
			stdin = bytes.NewReader(tc.data)
		} else {
			path = write(t, tc.name, tc.data)
		}
		in, err := Open(path, stdin, Options{})
		var nd *NotADumpError
		if !errors.As(err, &nd) || in == nil || in.Kind != Unknown {
			t.Fatalf("%s: Open = %+v, %v; want a NotADumpError", tc.name, in, err)
		}
		if in.Size > 64<<10 {
			t.Errorf("%s: %d bytes copied, want only the head", tc.name, in.Size)
		}
		in.Close()
	}
}

// gzippedZeros is head followed by n zero bytes, gzip-compressed, made
// without holding the zeros.
func gzippedZeros(t *testing.T, head []byte, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(head)
	block := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, len(block))
		w.Write(block[:k])
		n -= k
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A minidump's copy stops after ZeroRunEnd zero bytes past everything its
// directory, memory lists and thread list name (a bomb behind a valid
// header), and never inside them: a dump whose memory list names a region
// of zeros longer than the run is copied whole.
func TestOpenZerosPastDumpStop(t *testing.T) {
	const bombZeros = 4 * ZeroRunEnd
	header := []byte("MDMP\x93\xa7\x00\x00")
	in, err := Open(write(t, "bomb.dmp.gz", gzippedZeros(t, header, bombZeros)), nil, Options{})
	if err != nil || in.Kind != Minidump {
		t.Fatalf("header and zeros: Open = %+v, %v; want a minidump", in, err)
	}
	if in.Size < ZeroRunEnd || in.Size > ZeroRunEnd+1<<20 {
		t.Errorf("header and %d zeros: %d bytes copied, want the run of %d and little more", bombZeros, in.Size, ZeroRunEnd)
	}
	in.Close()

	b := synth.New(minidump.ArchAMD64, synth.Linux)
	ctx := minidump.NewContext(minidump.ArchAMD64)
	b.AddThread(1, ctx, 0x7fff0000, make([]byte, 64))
	b.AddMemory(0x10000000, make([]byte, 2*ZeroRunEnd))
	dump, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	in, err = Open(write(t, "zeros-in-memory.dmp.gz", gzippedZeros(t, dump, 0)), nil, Options{})
	if err != nil || !bytes.Equal(content(t, in), dump) {
		t.Errorf("a dump with %d zero bytes of memory: Open = %+v, %v; want it whole", 2*ZeroRunEnd, in, err)
	}
	in.Close()
	in, err = Open(write(t, "trailing-zeros.dmp.gz", gzippedZeros(t, dump, bombZeros)), nil, Options{})
	if err != nil || in.Size < int64(len(dump)) || in.Size > int64(len(dump))+ZeroRunEnd+1<<20 {
		t.Fatalf("the same dump and %d zeros: Open = %+v, %v; want the dump and the run", bombZeros, in, err)
	}
	if got := content(t, in); !bytes.Equal(got[:len(dump)], dump) {
		t.Errorf("the same dump and zeros: the dump's bytes differ")
	}
	in.Close()
}

// TestMicrodumpBounds: every microdump of Breakpad's corpus is recognised,
// a minidump's magic is not, and the text read to look for one is what
// the parser accepts.
func TestMicrodumpBounds(t *testing.T) {
	if maxMicrodump != microdump.MaxSize {
		t.Errorf("input reads up to %d bytes of text, microdump.Parse takes %d", maxMicrodump, microdump.MaxSize)
	}
	dumps, _ := filepath.Glob(filepath.Join(corpus.Shared(t, "corpus", "breakpad", "microdumps"), "microdump-*.dmp"))
	if len(dumps) < 7 {
		t.Fatalf("%d microdumps in Breakpad's corpus, want 7", len(dumps))
	}
	for _, path := range dumps {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !holdsMicrodump(data) {
			t.Errorf("%s: not recognised", filepath.Base(path))
		}
	}
	if holdsMicrodump([]byte("MDMP\x93\xa7")) {
		t.Error("a minidump header recognised as a microdump")
	}
}
