package dumptext

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"io"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// FuzzWrite prints arbitrary bytes opened as a minidump: Write must not
// panic, and must print nothing when it reports the file unreadable. Seeds:
// the small dumps of testdata and the shared corpus.
func FuzzWrite(f *testing.F) {
	if root, err := corpus.RepoRoot(); err == nil {
		for _, pat := range []string{"testdata/dumps/*.dmp", "../shared/corpus/*/dumps/*.dmp", "../shared/corpus/rust-minidump/testdata/*.dmp"} {
			m, _ := filepath.Glob(filepath.Join(root, pat))
			for _, p := range m {
				if b, err := os.ReadFile(p); err == nil && len(b) <= 16<<10 {
					f.Add(b)
				}
			}
		}
	}
	f.Add([]byte("MDMP\x93\xa7\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := Write(&out, file); err != nil && out.Len() != 0 && !errors.Is(err, ErrReadBudget) {
			t.Fatalf("Write failed (%v) after printing %d bytes", err, out.Len())
		}
		if err := Write(io.Discard, file); err != nil && file.Header.NumStreams <= maxStreams && !errors.Is(err, ErrReadBudget) {
			t.Fatalf("Write failed on a dump of %d streams: %v", file.Header.NumStreams, err)
		}
	})
}

// TestRandomMutations runs Write on corpus dumps with random bytes
// overwritten anywhere: no panic, and the header always printed. Each dump
// is a subtest with its own source seeded from its name, so a failure
// repeats whatever the order or the -run filter.
func TestRandomMutations(t *testing.T) {
	dumps := smallDumps(t)
	paths := slices.Sorted(maps.Keys(dumps))
	for _, p := range paths {
		data := dumps[p]
		t.Run(filepath.Base(p), func(t *testing.T) {
			h := fnv.New64a()
			h.Write([]byte(filepath.Base(p)))
			rng := rand.New(rand.NewSource(int64(h.Sum64())))
			for i := 0; i < 20; i++ {
				m := append([]byte(nil), data...)
				for j := 0; j < 1+rng.Intn(16); j++ {
					m[rng.Intn(len(m))] = byte(rng.Intn(256))
				}
				file, err := minidump.NewFile(bytes.NewReader(m), int64(len(m)))
				if err != nil {
					continue
				}
				var out bytes.Buffer
				err = Write(&out, file)
				if err != nil && out.Len() != 0 && !errors.Is(err, ErrReadBudget) {
					t.Fatalf("mutation %d: Write failed (%v) after printing", i, err)
				}
				// A mutated stream count over Breakpad's limit (that still
				// fits in the file) makes minidump_dump reject the file
				// whole: nothing printed (TestTooManyStreams).
				if err != nil && out.Len() == 0 && file.Header.NumStreams > maxStreams {
					continue
				}
				if !bytes.HasPrefix(out.Bytes(), []byte("MDRawHeader\n")) {
					t.Fatalf("mutation %d: output does not start with the header (Write: %v)", i, err)
				}
			}
		})
	}
}

// TestTooManyStreams: a header whose stream count was raised past
// Breakpad's limit, its directory still within the file (one of
// linux-amd64-recursive_deep's mutations), is rejected whole: Breakpad's
// Minidump::Read fails and minidump_dump prints nothing, and so does Write.
func TestTooManyStreams(t *testing.T) {
	root, err := corpus.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "testdata/dumps/amd64-fp.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	data = append([]byte(nil), data...)
	// The entries past the real ones read whatever follows the directory:
	// zeroed, they are unused streams, which our reader allows many of.
	streams, dirOff := binary.LittleEndian.Uint32(data[8:]), binary.LittleEndian.Uint32(data[12:])
	clear(data[dirOff+12*streams : dirOff+12*(maxStreams+1)])
	binary.LittleEndian.PutUint32(data[8:], maxStreams+1)
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("NewFile: %v", err)
	}
	var out bytes.Buffer
	if err := Write(&out, f); err == nil || out.Len() != 0 {
		t.Fatalf("Write: %v after %d bytes, want an error and nothing printed", err, out.Len())
	}
	if bin, ok := oracle.Lookup(oracle.Dump); ok {
		if got := matchOracle(t, bin, data); got != "" {
			t.Errorf("printed %q", got)
		}
	}
}

// TestReadBudget: 4096 threads all pointing at one 1 MiB stack would make
// Breakpad read 4 GiB; Write stops at its budget, prints the rest as
// unreadable, and says so.
func TestReadBudget(t *testing.T) {
	const threads, stack = 4096, 1 << 20
	var dir, list []byte
	le32 := func(b []byte, vs ...uint32) []byte {
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		return b
	}
	listOff := uint32(32 + 12)
	stackOff := listOff + 4 + threads*48
	list = le32(list, threads)
	for i := uint32(0); i < threads; i++ {
		// id, suspend, class, priority, teb, stack {start, size, rva}, context {size, rva}
		list = le32(list, i+1, 0, 0, 0, 0, 0, 0x10000, 0, stack, stackOff, 0, 0)
	}
	dir = le32(dir, 3, uint32(len(list)), listOff)
	head := le32(nil, 0x504d444d, 0xa793, 1, 32, 0, 0, 0, 0)
	data := append(append(append(head, dir...), list...), make([]byte, stack)...)
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out countWriter
	err = Write(&out, f)
	if !errors.Is(err, ErrReadBudget) {
		t.Fatalf("Write: %v, want ErrReadBudget", err)
	}
	if limit := 3 * readBudget(int64(len(data))); out.n > limit {
		t.Errorf("printed %d bytes, more than %d", out.n, limit)
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// TestReadBudgetCrashpad: 20000 Crashpad module links sharing one module
// whose dictionary has 1000 entries would make Breakpad decode 20 million
// annotations; Write stops at its budget and leaves the stream out.
func TestReadBudgetCrashpad(t *testing.T) {
	const links, entries = 20000, 1000
	le32 := func(b []byte, vs ...uint32) []byte {
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		return b
	}
	const streamOff = 32 + 12
	body := make([]byte, 64) // MDRawCrashpadInfo, filled in below
	str := uint32(streamOff + len(body))
	body = le32(body, 1, 'x')
	dict := uint32(streamOff + len(body))
	body = le32(body, entries)
	for i := 0; i < entries; i++ {
		body = le32(body, str, str)
	}
	modInfo := uint32(streamOff + len(body))
	body = le32(body, 1, 0, 0, 8, dict, 0, 0)
	linkList := uint32(streamOff + len(body))
	body = le32(body, links)
	for i := 0; i < links; i++ {
		body = le32(body, 0, 28, modInfo)
	}
	copy(body[44:], le32(nil, 8, linkList))
	data := le32(nil, 0x504d444d, 0xa793, 1, 32, 0, 0, 0, 0, 0x43500001, uint32(len(body)), streamOff)
	data = append(data, body...)
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, f); !errors.Is(err, ErrReadBudget) {
		t.Fatalf("Write: %v, want ErrReadBudget", err)
	}
	if bytes.Contains(out.Bytes(), []byte("MDRawCrashpadInfo")) {
		t.Error("the Crashpad stream was printed")
	}
}
