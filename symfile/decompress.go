package symfile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Bounds on decompressed symbol data (docs/limits.md). A .sym.gz or
// .sym.zst file is decompressed into a temporary file (into memory when
// none can be made; into the index directory with one), and a small
// compressed file can expand a thousandfold: the defaults keep a run
// within a 2 GB container.
const (
	// DefaultMaxDecompressedFile bounds the decompressed size of one file.
	DefaultMaxDecompressedFile = 512 << 20
	// DefaultMaxDecompressedTotal bounds the decompressed bytes of all the
	// files one DecompressBudget (by default, one supplier) opens.
	DefaultMaxDecompressedTotal = 1 << 30
)

// Decompressor returns a reader of the decompressed data of r, the
// contents of the compressed symbol file name (whose extension, .gz or
// .zst, names the format), and the function that releases the reader.
// This package has none of its own, so that a program reading only plain
// symbol files links no decompressor: package symcompress's Reader is one.
type Decompressor func(r io.Reader, name string) (data io.Reader, release func(), err error)

// ErrNoDecompressor reports a compressed symbol file opened without a
// Decompressor (DecompressBudget.WithDecompressor).
var ErrNoDecompressor = errors.New("compressed symbol file, and no decompressor given")

// ErrDecompressLimit reports a compressed symbol file whose decompressed
// data is over a DecompressBudget's bound (per file or in all).
var ErrDecompressLimit = errors.New("decompressed symbol data over the limit")

// DecompressBudget says how .sym.gz and .sym.zst files are read: with its
// Decompressor (WithDecompressor; without one they cannot be), and within
// its bounds on the bytes decompressed, per file and in all over the files
// opened with it. The bytes of a file that was opened stay counted (the
// File holds them); those of a file that failed are given back. It is safe
// for concurrent use.
type DecompressBudget struct {
	perFile, total int64
	used           atomic.Int64
	decompress     Decompressor
}

// NewDecompressBudget returns a budget of perFile bytes per file and total
// bytes in all; 0 selects the default for either.
func NewDecompressBudget(perFile, total int64) *DecompressBudget {
	if perFile <= 0 {
		perFile = DefaultMaxDecompressedFile
	}
	if total <= 0 {
		total = DefaultMaxDecompressedTotal
	}
	return &DecompressBudget{perFile: perFile, total: total}
}

// WithDecompressor sets the Decompressor of b's files and returns b. Call
// it before b is used.
func (b *DecompressBudget) WithDecompressor(d Decompressor) *DecompressBudget {
	b.decompress = d
	return b
}

// reader returns a reader of the decompressed data of fh, the contents of
// the compressed file path, and its release function.
func (b *DecompressBudget) reader(fh io.Reader, path string) (io.Reader, func(), error) {
	if b == nil || b.decompress == nil {
		return nil, nil, ErrNoDecompressor
	}
	return b.decompress(fh, path)
}

// Used is the number of decompressed bytes currently counted.
func (b *DecompressBudget) Used() int64 { return b.used.Load() }

// OpenWithBudget is Open reading a .gz or .zst file with b's Decompressor,
// its decompressed data bounded by b. A file over the bound is not
// indexed: the error wraps ErrDecompressLimit. Without a budget or a
// Decompressor, a compressed file is reported corrupt, the error wrapping
// ErrNoDecompressor.
//
// The data is streamed into an unlinked temporary file (in os.TempDir)
// that is then mapped and indexed as a plain file is, so the process's
// memory does not grow with the decompressed size; only when no temporary
// file can be made is it decompressed into memory.
func OpenWithBudget(path string, b *DecompressBudget) (*File, error) {
	if !isCompressed(path) {
		return Open(path)
	}
	if f, err, ok := openViaTemp(path, b); ok {
		return f, err
	}
	data, release, err := readCompressed(path, b)
	if err != nil {
		return nil, err
	}
	f, err := NewFile(data, path)
	if release != nil {
		// Close releases the memory; so does the garbage collector for a
		// File dropped without Close (once, whichever comes first).
		once := sync.OnceValue(release)
		f.unmap = once
		runtime.AddCleanup(f, func(r func() error) { r() }, once)
	}
	return f, err
}

// openViaTemp decompresses path into an unlinked temporary file, within
// b's bounds, and opens that. ok is false when no temporary file could be
// made or written (the caller decompresses into memory instead).
func openViaTemp(path string, b *DecompressBudget) (f *File, err error, ok bool) {
	fh, _, err := openRegular(path)
	if err != nil {
		return nil, err, true
	}
	defer fh.Close()
	tmp, err := os.CreateTemp("", "minidump-stackwalk-sym-*")
	if err != nil {
		return nil, nil, false
	}
	// Unlinked at once: nothing is left behind however the process ends,
	// and the mapping keeps the data until Close.
	os.Remove(tmp.Name())
	defer tmp.Close()
	bw := &budgetWriter{w: tmp, b: b}
	n, err := decompressCounted(fh, path, bw, b)
	if err != nil {
		if b != nil {
			b.used.Add(-bw.n)
		}
		var ce *CorruptError
		switch {
		case errors.As(err, &ce):
			return nil, err, true
		case errors.Is(err, ErrDecompressLimit):
			return nil, &CorruptError{File: path, Err: err}, true
		}
		return nil, nil, false // the temporary file could not be written
	}
	f, err = openMapped(tmp, n, path)
	if f == nil {
		if b != nil {
			b.used.Add(-n)
		}
		return nil, err, true
	}
	if b != nil {
		// The File's data stays counted until it is closed.
		u := f.unmap
		var once sync.Once
		f.unmap = func() error {
			once.Do(func() { b.used.Add(-n) })
			return u()
		}
	}
	return f, err, true
}

// budgetWriter charges the bytes written through it to b's total as they
// arrive, so that concurrent loads cannot together pass it.
type budgetWriter struct {
	w io.Writer
	b *DecompressBudget
	n int64 // bytes charged
}

func (bw *budgetWriter) Write(p []byte) (int, error) {
	if bw.b != nil {
		bw.n += int64(len(p))
		if bw.b.used.Add(int64(len(p))) > bw.b.total {
			return 0, fmt.Errorf("%w: more than %d bytes in all symbol files", ErrDecompressLimit, bw.b.total)
		}
	}
	return bw.w.Write(p)
}

func isCompressed(path string) bool {
	return strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".zst")
}

// readCompressed decompresses path into memory within b's bounds. The
// returned function, when not nil, releases the memory (File.Close).
func readCompressed(path string, b *DecompressBudget) ([]byte, func() error, error) {
	if b == nil {
		b = &DecompressBudget{perFile: DefaultMaxDecompressedFile, total: 1<<63 - 1}
	}
	fh, st, err := openRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	r, closeFn, err := b.reader(fh, path)
	if err != nil {
		return nil, nil, &CorruptError{File: path, Err: err}
	}
	defer closeFn()
	limit := b.perFile
	// Charge the budget as the data arrives, so that concurrent loads
	// cannot together pass the total.
	counted := &budgetReader{r: io.LimitReader(r, limit+1), b: b}
	data, release, err := readAll(counted, limit+1, sizeHint(fh, path, st.Size()))
	switch {
	case err == nil && int64(len(data)) > limit:
		err = fmt.Errorf("%w: more than %d bytes in this file", ErrDecompressLimit, limit)
	case errors.Is(err, ErrDecompressLimit):
	case err != nil:
		err = fmt.Errorf("decompressing: %w", err)
	}
	if err != nil {
		if release != nil {
			release()
		}
		b.used.Add(-counted.n)
		return nil, nil, &CorruptError{File: path, Err: err}
	}
	return data, release, nil
}

// readAll reads r, which gives at most max bytes, into reserved memory
// when it can (see reserve), else into a buffer grown from hint.
func readAll(r io.Reader, max, hint int64) ([]byte, func() error, error) {
	mem, free := reserve(max)
	if mem == nil {
		var buf bytes.Buffer
		if hint > 0 {
			buf.Grow(int(min(hint, max)))
		}
		_, err := io.Copy(&buf, r)
		return buf.Bytes(), nil, err
	}
	n := 0
	var err error
	for n < len(mem) && err == nil {
		var k int
		k, err = r.Read(mem[n:])
		n += k
	}
	if err == io.EOF {
		err = nil
	}
	// The pages past n were never written and hold no memory. (They were
	// unmapped here once, with syscall.Munmap of the tail, which refuses
	// anything but a whole mapping: it never gave anything back.)
	return mem[:n], free, err
}

// budgetReader counts the bytes read from r against b's total.
type budgetReader struct {
	r io.Reader
	b *DecompressBudget
	n int64 // bytes charged
}

func (br *budgetReader) Read(p []byte) (int, error) {
	n, err := br.r.Read(p)
	if n > 0 {
		br.n += int64(n)
		if br.b.used.Add(int64(n)) > br.b.total {
			return 0, fmt.Errorf("%w: more than %d bytes in all symbol files", ErrDecompressLimit, br.b.total)
		}
	}
	return n, err
}

// sizeHint is the decompressed size a .gz file's trailer claims (modulo
// 2^32, so only a hint), 0 when unknown; it saves the buffer's doublings.
func sizeHint(fh *os.File, path string, size int64) int64 {
	if !strings.HasSuffix(path, ".gz") || size < 18 {
		return 0
	}
	var tail [4]byte
	if _, err := fh.ReadAt(tail[:], size-4); err != nil {
		return 0
	}
	return int64(binary.LittleEndian.Uint32(tail[:]))
}

// firstCompressedLine returns the first line (at most 64 KiB) of a
// compressed symbol file, decompressing no more than that with b's
// Decompressor.
func firstCompressedLine(path string, b *DecompressBudget) ([]byte, error) {
	fh, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r, closeFn, err := b.reader(fh, path)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	line, err := bufio.NewReaderSize(io.LimitReader(r, 64<<10), 64<<10).ReadSlice('\n')
	if err != nil && len(line) == 0 {
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}
