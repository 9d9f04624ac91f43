package symfile

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// genOnce writes a synthetic symbol file shaped like dump_syms output
// (FILE, FUNC with line records, PUBLIC, STACK CFI INIT with deltas) of
// about size bytes to $TMPDIR/symfile-bench-<size>/big.sym, and reuses it
// in later runs (delete the directory to regenerate).
var (
	genOnce sync.Once
	genPath string
	genErr  error
)

func generatedSym(b *testing.B, size int) string {
	genOnce.Do(func() {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("symfile-bench-%d", size))
		genPath = filepath.Join(dir, "big.sym")
		done := filepath.Join(dir, "complete")
		if _, err := os.Stat(done); err == nil {
			return
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			genErr = err
			return
		}
		fh, err := os.Create(genPath)
		if err != nil {
			genErr = err
			return
		}
		w := bufio.NewWriterSize(fh, 1<<20)
		fmt.Fprintf(w, "MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 big.so\nINFO CODE_ID 89674523EFCDAB89\n")
		for i := range 2000 {
			fmt.Fprintf(w, "FILE %d /build/src/some/dir/file_%d.cc\n", i, i)
		}
		n := 0
		addr := uint64(0x1000)
		for written := 0; written < size/2; n++ {
			fmt.Fprintf(w, "FUNC %x %x 0 namespace::Class%d::method_%d(int, char const*)\n", addr, 0x200, n%977, n)
			for l := range 16 {
				fmt.Fprintf(w, "%x %x %d %d\n", addr+uint64(l*0x20), 0x20, 100+l, n%2000)
			}
			addr += 0x200
			written = w.Buffered() + int(must(fh.Seek(0, 1)))
		}
		for i := range n / 4 {
			fmt.Fprintf(w, "PUBLIC %x 0 public_symbol_%d\n", uint64(0x1000)+uint64(i)*0x800+0x100, i)
		}
		caddr := uint64(0x1000)
		for written := 0; written < size; {
			fmt.Fprintf(w, "STACK CFI INIT %x %x .cfa: $rsp 8 + .ra: .cfa -8 + ^\n", caddr, 0x200)
			fmt.Fprintf(w, "STACK CFI %x .cfa: $rsp 16 + $rbp: .cfa -16 + ^\n", caddr+1)
			fmt.Fprintf(w, "STACK CFI %x .cfa: $rbp 16 +\n", caddr+4)
			fmt.Fprintf(w, "STACK CFI %x $rbx: .cfa -24 + ^\n", caddr+8)
			caddr += 0x200
			written = w.Buffered() + int(must(fh.Seek(0, 1)))
		}
		if genErr = w.Flush(); genErr == nil {
			genErr = fh.Close()
		}
		if genErr == nil {
			genErr = os.WriteFile(done, nil, 0o644)
		}
	})
	if genErr != nil {
		b.Fatal(genErr)
	}
	return genPath
}

func must(v int64, err error) int64 {
	if err != nil {
		panic(err)
	}
	return v
}

// benchPath is SYMFILE_BENCH_FILE or else a generated 256 MB file.
func benchPath(b *testing.B) string {
	if path := os.Getenv("SYMFILE_BENCH_FILE"); path != "" {
		return path
	}
	return generatedSym(b, 256<<20)
}

// benchFile opens benchPath.
func benchFile(b *testing.B) *File {
	f, err := testOpen(benchPath(b))
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkOpen measures making a symbol file ready for lookups (mmap plus
// the index pass) on a generated 256 MB file; MB/s is the load speed.
// SYMFILE_BENCH_FILE names another file to use (e.g. the 1.1 GB stress file).
func BenchmarkOpen(b *testing.B) {
	path := benchPath(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ResetTimer()
	for b.Loop() {
		f, err := testOpen(path)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkIndexDirFirst measures a first run with an index directory
// (issue 29): the index pass over the file, read from the page cache, and
// writing its index into an empty directory. MB/s is per byte of the
// symbol file; SYMFILE_BENCH_FILE names another file, as for BenchmarkOpen.
func BenchmarkIndexDirFirst(b *testing.B) {
	path := benchPath(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	dir := filepath.Join(b.TempDir(), "index")
	for b.Loop() {
		b.StopTimer()
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		f, err := testIndexDir(b, dir, func(err error) { b.Error(err) }).Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if f.origin != fromBuild {
			b.Fatalf("index not built and written (origin %d)", f.origin)
		}
		f.Close()
	}
}

// BenchmarkLookup measures a symbolization after Open (first touch of a
// function parses it; later ones hit the cache).
func BenchmarkLookup(b *testing.B) {
	f := benchFile(b)
	defer f.Close()
	if f.funcs.len() == 0 {
		b.Skip("no FUNC records")
	}
	i := 0
	for b.Loop() {
		s := f.funcAt((i * 7919) % f.funcs.len())
		if _, ok := f.Lookup(s.base + (s.high-s.base)/2); !ok {
			b.Fatal("lookup failed")
		}
		i++
	}
}

func BenchmarkCFIRules(b *testing.B) {
	f := benchFile(b)
	defer f.Close()
	if f.cfi.len() == 0 {
		b.Skip("no CFI records")
	}
	i := 0
	for b.Loop() {
		s := f.cfiAt((i * 7919) % f.cfi.len())
		if _, ok := f.CFIRules(s.base + 9); !ok {
			b.Fatal("CFI lookup failed")
		}
		i++
	}
}

// benchChunkFile reads the file SYMFILE_BENCH_CHUNK_FILE names, or skips
// the benchmark without it.
func benchChunkFile(b *testing.B) []byte {
	path := os.Getenv("SYMFILE_BENCH_CHUNK_FILE")
	if path == "" {
		b.Skip("SYMFILE_BENCH_CHUNK_FILE not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkIndexChunk measures the index pass over a file in one chunk on
// one goroutine (no merge, no page release): the scanning cost alone.
// SYMFILE_BENCH_CHUNK_FILE names the file; the benchmark skips without it.
func BenchmarkIndexChunk(b *testing.B) {
	data := benchChunkFile(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		indexChunkInto(data, 0, len(data), new(chunkScratch).start(nil), 0)
	}
}

// BenchmarkSortRuns measures a worker's sort of one chunk's records
// (sortRuns) of SYMFILE_BENCH_CHUNK_FILE; it skips without it.
func BenchmarkSortRuns(b *testing.B) {
	data := benchChunkFile(b)
	c := indexChunkInto(data, 0, len(data), new(chunkScratch).start(nil), 0)
	s := &chunkIndex{funcs: slices.Clone(c.funcs), pubs: slices.Clone(c.pubs), cfi: slices.Clone(c.cfi)}
	for b.Loop() {
		copy(s.funcs, c.funcs)
		copy(s.pubs, c.pubs)
		copy(s.cfi, c.cfi)
		s.tail = c.tail
		s.sortRuns(new([]rangeEntry))
	}
}

// BenchmarkMerge measures the merge of the index pass's chunk results (the
// part after the parallel scan) over the 8 MB chunks of
// SYMFILE_BENCH_CHUNK_FILE; it skips without it.
func BenchmarkMerge(b *testing.B) {
	data := benchChunkFile(b)
	var chunks []*chunkIndex
	for pos := 0; pos < len(data); {
		end := min(pos+defaultChunkSize, len(data))
		if nl := bytes.IndexByte(data[end:], '\n'); nl >= 0 {
			end += nl + 1
		} else {
			end = len(data)
		}
		c := indexChunkInto(data, pos, end, new(chunkScratch).start(nil), 0)
		c.sortRuns(new([]rangeEntry))
		chunks = append(chunks, c)
		pos = end
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f := &File{data: data}
		f.merge(chunks, publicRoom{}, nil)
	}
}

// BenchmarkFindCallerRegs applies a typical amd64 rule set (dump_syms's
// after a push of rbp and rbx): the evaluation a walk makes per CFI frame.
func BenchmarkFindCallerRegs(b *testing.B) {
	rules := CFIRules{CFA: "$rsp 24 +", RA: ".cfa -8 + ^",
		Rules: []CFIRule{{"$rbp", ".cfa -16 + ^"}, {"$rbx", ".cfa -24 + ^"}}}
	regs := map[string]uint64{"$rsp": 0x1000, "$rbp": 0x2000, "$rbx": 1, "$rip": 0x10}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rules.FindCallerRegs(regs, zeroMemory{}, 8); err != nil {
			b.Fatal(err)
		}
	}
}

// sliceRegisters are Registers over a short table, as the walkers' own.
type sliceRegisters struct {
	names  []string
	in     []uint64
	caller []uint64
}

func (r *sliceRegisters) Register(name string) (uint64, bool) {
	for i, n := range r.names {
		if n == name {
			return r.in[i], true
		}
	}
	return 0, false
}

func (r *sliceRegisters) SetCaller(name string, v uint64) {
	for i, n := range r.names {
		if n == name {
			r.caller[i] = v
		}
	}
}

// BenchmarkEvaluatorCallerRegs is BenchmarkFindCallerRegs through the
// Evaluator a walk keeps, without maps: the path of every CFI frame,
// from the rules' strings and from their compiled form (a File's rows).
func BenchmarkEvaluatorCallerRegs(b *testing.B) {
	rules := CFIRules{CFA: "$rsp 24 +", RA: ".cfa -8 + ^",
		Rules: []CFIRule{{"$rbp", ".cfa -16 + ^"}, {"$rbx", ".cfa -24 + ^"}}}
	b.Run("strings", func(b *testing.B) { benchCallerRegs(b, rules) })
	rules.Compiled = compileCFI(rules)
	b.Run("compiled", func(b *testing.B) { benchCallerRegs(b, rules) })
}

func benchCallerRegs(b *testing.B, rules CFIRules) {
	regs := &sliceRegisters{names: []string{"$rip", "$rsp", "$rbp", "$rbx", ".cfa", ".ra"},
		in: []uint64{0x10, 0x1000, 0x2000, 1, 0, 0}, caller: make([]uint64, 6)}
	var x Evaluator
	b.ReportAllocs()
	for b.Loop() {
		if err := x.CallerRegs(&rules, regs, zeroMemory{}, 8); err != nil {
			b.Fatal(err)
		}
	}
}
