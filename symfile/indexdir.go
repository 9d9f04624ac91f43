package symfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"
)

// identityBytes is how much of a file's head and of its tail the identity
// hashes: enough to tell apart two builds of one module whose size and
// modification time happen to agree, without reading the whole file.
const identityBytes = 64 << 10

// IndexDir keeps on-disk indexes of symbol files in a directory, so that a
// process maps a symbol file's index instead of reading the whole file: see
// IndexDir.Open. It is safe for concurrent use, also by several processes
// sharing the directory.
type IndexDir struct {
	dir      string
	budget   *DecompressBudget // bounds the decompressed copies; nil: the default per file
	warn     func(error)
	warnOnce sync.Once

	cleanOnce sync.Once // removeOldTemps

	// The indexes being written (store): writes counts them, writing maps
	// each one's path to a channel closed when it is done, failed holds
	// the errors not yet reported.
	writes  sync.WaitGroup
	mu      sync.Mutex
	writing map[string]chan struct{}
	failed  []error

	writeStart func() // WithWriteStart
}

// NewIndexDir returns the index directory dir (created on first use).
// warn, when not nil, is told once when the directory cannot be written
// (symbol files are then indexed in memory, as by Open), and of each index
// file found corrupt or foreign (which is then rebuilt).
func NewIndexDir(dir string, warn func(error)) *IndexDir {
	return &IndexDir{dir: dir, warn: warn}
}

// WithDecompressBudget makes d decompress .sym.gz and .sym.zst files with
// b's Decompressor (without one they are reported corrupt), and bounds the
// copies it writes, per file and in all, as b bounds them in memory
// without an index. It returns d.
func (d *IndexDir) WithDecompressBudget(b *DecompressBudget) *IndexDir {
	d.budget = b
	return d
}

// WithWriteStart makes d call start (from any goroutine, maybe at once)
// before it begins to write an index, which goes on after Open returns:
// a process can then arrange, only when there is a write to wait for,
// that a signal waits for it (the CLI's catchSignals). It returns d.
func (d *IndexDir) WithWriteStart(start func()) *IndexDir {
	d.writeStart = start
	return d
}

// DefaultIndexDir is the user's cache directory followed by
// minidump-stackwalk/index, or "" when there is no cache directory.
func DefaultIndexDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "minidump-stackwalk", "index")
}

// Dir is the directory the indexes are kept in.
func (d *IndexDir) Dir() string { return d.dir }

// How a File was made; tests check it.
const (
	fromMemory = iota // indexed in memory (no index directory, or it failed)
	fromBuild         // indexed in memory, and the index written (or being written: store) to disk
	fromIndex         // the on-disk index, mapped
)

// errStale marks an index made for an earlier version of its symbol file,
// or by another version of this package: rebuilt without a warning.
var errStale = errors.New("stale")

// Open opens the symbol file at path as the package's Open does, through
// the index directory: when it holds an index made from this very file
// (same size, modification time, change stamp and sampled content: see
// fileIdentity) by this version of
// the package, the index is mapped and checked (CRC-32C, bounds, order)
// instead of reading the symbol file; otherwise the file is indexed in
// memory and the index written to a temporary file that is then renamed
// into place, by a goroutine while the caller uses the File (Wait waits
// for it, as does the File's Close). A .sym.gz or .sym.zst file is
// decompressed into the directory, streaming, and the copy used as a
// plain file.
//
// An index that cannot be used is rebuilt; a directory that cannot be
// written leaves the File indexed in memory. A nil IndexDir is Open.
func (d *IndexDir) Open(path string) (*File, error) {
	return d.open(path, "")
}

// OpenETag is Open for a file a symbol server sent with the validator
// etag (the ETag header's value, as sent): its index is keyed to the ETag,
// the file's size and its modification time instead of a hash of its head
// and tail, which is not read. An index made by Open for the same path
// does not match, nor does one made for another ETag: a supplier uses one
// of the two for a given file. An empty etag is Open.
func (d *IndexDir) OpenETag(path, etag string) (*File, error) {
	return d.open(path, etag)
}

// Adopt writes the index of f, made in memory (NewFile, Open, or an
// IndexDir's Open) from exactly the bytes now in the plain symbol file at
// path, as that file's index: a download that indexed the file to check
// it before renaming it into a cache spares the next Open a second build.
// etag keys it as OpenETag does ("" as Open does). A File made from other
// bytes gives a mismatched index that a lookup may answer wrongly from, so
// only the size is checked here; the caller vouches for the rest.
func (d *IndexDir) Adopt(f *File, path, etag string) error {
	if compressedName(path) {
		return fmt.Errorf("symfile: Adopt %s: not a plain symbol file", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	fh, st, err := openRegular(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	if st.Size() != int64(len(f.data)) {
		return fmt.Errorf("symfile: Adopt %s: %d bytes, the File has %d", path, st.Size(), len(f.data))
	}
	srcID, err := sourceIdentity(fh, st, etag)
	if err != nil {
		return err
	}
	d.cleanOnce.Do(d.removeOldTemps)
	return writeAtomic(d.dir, filepath.Join(d.dir, indexKey(abs)+".idx"), func(w io.Writer) error {
		return writeIndex(w, f, abs, srcID, srcID)
	})
}

func (d *IndexDir) open(path, etag string) (*File, error) {
	if d == nil {
		return Open(path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	fh, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	srcID, err := sourceIdentity(fh, st, etag)
	if err != nil {
		return nil, err
	}
	d.reportFailed()
	k := indexKey(abs)
	idxPath := filepath.Join(d.dir, k+".idx")
	d.waitFor(idxPath) // this process's own write of that index, if under way
	if compressedName(path) {
		return d.openCompressed(fh, path, abs, k, idxPath, srcID)
	}
	if f, err := d.load(idxPath, fh, path, abs, srcID, srcID); f != nil {
		return f, f.Err()
	} else if err != nil {
		d.report(idxPath, err)
	}
	f, err := openMapped(fh, st.Size(), path)
	if f == nil {
		return nil, err
	}
	d.store(idxPath, f, abs, srcID, srcID)
	return f, err
}

// compressedName reports whether path names a .gz or .zst file, which Open
// decompresses.
func compressedName(path string) bool {
	return strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".zst")
}

// indexKey names the index files of the symbol file at abs.
func indexKey(abs string) string {
	sum := sha256.Sum256([]byte(abs))
	base := []byte(filepath.Base(abs))
	if len(base) > 64 {
		base = base[:64]
	}
	for i, c := range base { // the name is for people; the hash is the key
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			base[i] = '_'
		}
	}
	return hex.EncodeToString(sum[:16]) + "-" + string(base)
}

// sourceIdentity is the identity of the symbol file fh: from the
// server's ETag when etag is not empty, else from its content
// (fileIdentity); both with the file's change stamp.
func sourceIdentity(fh *os.File, st fs.FileInfo, etag string) (identity, error) {
	if etag == "" {
		return fileIdentity(fh, st)
	}
	// Prefixed to tell it from a hash of content.
	h := sha256.New()
	h.Write([]byte("ETag\x00" + etag + "\x00"))
	h.Write(changeStamp(st))
	id := identity{size: uint64(st.Size()), mtime: st.ModTime().UnixNano()}
	h.Sum(id.hash[:0])
	return id, nil
}

// identitySamples is how many blocks of identitySampleBytes, spread evenly
// over the file between its head and its tail, the identity hashes.
const (
	identitySamples     = 64
	identitySampleBytes = 4 << 10
	// identityChunkBytes is the most identityOf reads at once.
	identityChunkBytes = 16 << 10
)

// fileIdentity reads the identity of the open file fh: its size and
// modification time, and a hash of its change stamp (changeStamp: the
// inode's change time, which an edit in place moves even when the
// modification time is set back) and of its content: the first and last
// identityBytes bytes and identitySamples blocks between them, about
// 400 KiB read whatever the file's size. The samples catch an edit that
// keeps the size, the modification time and the head and tail where the
// change time cannot (a system without one, a coarse one).
func fileIdentity(fh *os.File, st fs.FileInfo) (identity, error) {
	return identityOf(fh, st, changeStamp(st))
}

// identityOf is fileIdentity with the change stamp given.
func identityOf(fh *os.File, st fs.FileInfo, stamp []byte) (identity, error) {
	size := st.Size()
	id := identity{size: uint64(size), mtime: st.ModTime().UnixNano()}
	h := sha256.New()
	h.Write(stamp)
	// Read through a buffer of identityChunkBytes, sized by the file: a
	// constant-sized 64 KiB buffer went on the goroutine's stack, which
	// then grew to 128 KiB and was zeroed, and a 64 KiB one on the heap is
	// 16 fresh pages for every symbol file a run opens (issue 29).
	buf := make([]byte, max(0, min(size, identityChunkBytes)))
	read := func(off, n int64) error {
		for n > 0 {
			k := min(n, int64(len(buf)))
			if _, err := fh.ReadAt(buf[:k], off); err != nil {
				return err
			}
			h.Write(buf[:k])
			off, n = off+k, n-k
		}
		return nil
	}
	if err := read(0, min(size, identityBytes)); err != nil {
		return id, err
	}
	if mid := size - 2*identityBytes; mid > 0 {
		for i := range int64(identitySamples) {
			off := identityBytes + mid*i/identitySamples
			if err := read(off, min(identitySampleBytes, size-identityBytes-off)); err != nil {
				return id, err
			}
		}
	}
	if size > identityBytes {
		n := min(size-identityBytes, identityBytes)
		if err := read(size-n, n); err != nil {
			return id, err
		}
	}
	h.Sum(id.hash[:0])
	return id, nil
}

// load maps the index at idxPath and the data in dataFH and makes a File
// from them. It returns nil and a nil error when there is no index to open,
// nil and an error when the index cannot be used.
func (d *IndexDir) load(idxPath string, dataFH *os.File, name, abs string, srcID, dataID identity) (*File, error) {
	ih, ist, err := openRegular(idxPath) // a FIFO planted there must not block
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, err
	}
	if err != nil {
		// No index (or no directory): build one; should the directory be
		// unusable, writing the index says so.
		return nil, nil
	}
	defer ih.Close()
	if ist.Size() < indexHeaderSize {
		return nil, errors.New("not an index file")
	}
	idx, unmapIdx, err := mapFile(ih, ist.Size())
	if err != nil {
		return nil, err
	}
	data, unmapData, err := mapFile(dataFH, int64(dataID.size))
	if err != nil {
		unmapIdx()
		return nil, err
	}
	var f *File
	unmap := func() error { return errors.Join(unmapData(), unmapIdx()) }
	ferr := guardMapped(name, unmap, func() {
		f, err = fileFromIndex(idx, data, name, abs, srcID, dataID, true)
	})
	if ferr != nil {
		return nil, ferr // the index or the symbol file was truncated: unmapped
	}
	if err != nil {
		unmap()
		return nil, err
	}
	adviseRandom(idx)
	adviseRandom(data)
	f.unmap = unmap
	f.origin = fromIndex
	return f, nil
}

// report passes an unusable index to the warning function, unless it is
// only stale.
func (d *IndexDir) report(idxPath string, err error) {
	if d.warn != nil && !errors.Is(err, errStale) {
		d.warn(&IndexError{Index: idxPath, Err: err})
	}
}

// cannotWrite warns, once per IndexDir, that the directory is not usable.
func (d *IndexDir) cannotWrite(err error) {
	d.warnOnce.Do(func() {
		if d.warn != nil {
			d.warn(fmt.Errorf("symbol index directory %s not usable, indexing in memory: %w", d.dir, err))
		}
	})
}

// store writes f's index to idxPath: to a temporary file first, renamed
// into place, so that readers (other processes too) never see a partial
// index; two processes storing the same index both leave a whole one. The
// temporary file is made here, so that a directory that cannot be written
// is reported at once; the index is written into it by a goroutine, while
// the caller goes on with f: Wait waits for the writes, f.Close for its
// own, and a later open of the same index in this process for that one.
// A process that exits without Wait leaves at most the temporary file,
// which removeOldTemps deletes later.
func (d *IndexDir) store(idxPath string, f *File, abs string, srcID, dataID identity) {
	d.cleanOnce.Do(d.removeOldTemps)
	if d.writeStart != nil {
		d.writeStart()
	}
	tmp, err := createTemp(d.dir, idxPath)
	if err != nil {
		d.cannotWrite(err)
		return
	}
	done := make(chan struct{})
	f.written = done
	f.origin = fromBuild
	d.mu.Lock()
	if d.writing == nil {
		d.writing = map[string]chan struct{}{}
	}
	d.writing[idxPath] = done
	d.mu.Unlock()
	d.writes.Add(1)
	go func() {
		defer d.writes.Done()
		err := finishTemp(tmp, idxPath, func(w io.Writer) error {
			return writeIndex(w, f, abs, srcID, dataID)
		})
		d.mu.Lock()
		if err != nil {
			d.failed = append(d.failed, err)
		}
		if d.writing[idxPath] == done {
			delete(d.writing, idxPath)
		}
		d.mu.Unlock()
		close(done)
	}()
}

// Wait waits for the indexes still being written (the builds of Open and
// OpenETag write them while their Files are used) and warns of those that
// could not be written, as Open warns of a directory it cannot write. A
// process should call it before it exits: one that does not leaves the
// indexes under way unwritten (never partly written: each is renamed into
// place whole). A nil IndexDir has nothing to wait for.
func (d *IndexDir) Wait() {
	if d == nil {
		return
	}
	d.writes.Wait()
	d.reportFailed()
}

// waitFor waits for this process's write of the index at idxPath, if one
// is under way.
func (d *IndexDir) waitFor(idxPath string) {
	d.mu.Lock()
	done := d.writing[idxPath]
	d.mu.Unlock()
	if done != nil {
		<-done
	}
}

// reportFailed warns of the index writes that failed since the last call.
func (d *IndexDir) reportFailed() {
	d.mu.Lock()
	failed := d.failed
	d.failed = nil
	d.mu.Unlock()
	for _, err := range failed {
		d.cannotWrite(err)
	}
}

// oldTemp is the age after which a temporary file in the index directory
// is taken to be left by a process that died while writing it.
const oldTemp = time.Hour

// removeOldTemps deletes the temporary files of builders that died.
func (d *IndexDir) removeOldTemps() {
	tmps, _ := filepath.Glob(filepath.Join(d.dir, "*.tmp*"))
	for _, p := range tmps {
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() && time.Since(st.ModTime()) > oldTemp {
			os.Remove(p)
		}
	}
}

// writeAtomic writes path through a temporary file in dir and renames it.
func writeAtomic(dir, path string, write func(io.Writer) error) error {
	tmp, err := createTemp(dir, path)
	if err != nil {
		return err
	}
	return finishTemp(tmp, path, write)
}

// createTemp creates the temporary file in dir that finishTemp writes and
// renames to path, and dir first if need be.
func createTemp(dir, path string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	if err := tmp.Chmod(0o644); err != nil { // readable as the files it indexes are
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	return tmp, nil
}

// finishTemp writes tmp with write, closes it and renames it to path; on
// any failure it removes tmp instead.
func finishTemp(tmp *os.File, path string, write func(io.Writer) error) error {
	err := write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// openCompressed serves a .sym.gz / .sym.zst through a decompressed copy in
// the index directory, named after the compressed file's identity so that
// a copy always matches the index that refers to it.
func (d *IndexDir) openCompressed(fh *os.File, path, abs, k, idxPath string, srcID identity) (*File, error) {
	copyPath := filepath.Join(d.dir, k+"."+hex.EncodeToString(srcID.hash[:8])+".sym")
	if ch, _, err := openRegular(copyPath); err == nil {
		f, err := d.loadCopy(ch, idxPath, path, abs, srcID)
		ch.Close()
		if f != nil {
			return f, f.Err()
		}
		if err != nil {
			d.report(idxPath, err)
		}
	}
	err := writeAtomic(d.dir, copyPath, func(w io.Writer) error {
		return decompressTo(fh, path, w, d.budget)
	})
	if err != nil {
		var ce *CorruptError
		if errors.As(err, &ce) {
			return nil, err
		}
		d.cannotWrite(err)
		return OpenWithBudget(path, d.budget)
	}
	d.removeOtherCopies(k, copyPath)
	ch, _, err := openRegular(copyPath)
	if err != nil {
		d.cannotWrite(err)
		return OpenWithBudget(path, d.budget)
	}
	defer ch.Close()
	cst, err := ch.Stat()
	if err != nil {
		return nil, err
	}
	dataID, err := fileIdentity(ch, cst)
	if err != nil {
		return nil, err
	}
	dataID.mtime = 0 // a copy is known by its content
	f, err := openMapped(ch, cst.Size(), path)
	if f == nil {
		return nil, err
	}
	d.store(idxPath, f, abs, srcID, dataID)
	return f, err
}

func (d *IndexDir) loadCopy(ch *os.File, idxPath, path, abs string, srcID identity) (*File, error) {
	cst, err := ch.Stat()
	if err != nil {
		return nil, err
	}
	dataID, err := fileIdentity(ch, cst)
	if err != nil {
		return nil, err
	}
	dataID.mtime = 0
	return d.load(idxPath, ch, path, abs, srcID, dataID)
}

// removeOtherCopies deletes the decompressed copies of earlier versions of
// the file with key k. A process still using one keeps its mapping.
func (d *IndexDir) removeOtherCopies(k, keep string) {
	old, _ := filepath.Glob(filepath.Join(d.dir, k+".*.sym"))
	for _, p := range old {
		if p != keep {
			os.Remove(p)
		}
	}
}

// openMapped maps the plain symbol file fh of size bytes and indexes it, as
// Open does.
func openMapped(fh *os.File, size int64, name string) (*File, error) {
	data, unmap, err := mapFile(fh, size)
	if err != nil {
		return nil, err
	}
	f := &File{name: name, data: data, unmap: unmap}
	// f.Close: the index pass adds its reservation to f.unmap (reservePublics).
	err = guardMapped(name, f.Close, func() {
		f.buildIndex(defaultChunkSize, &diskSource{r: fh, release: func(lo, hi int) { releasePages(data, lo, hi) }})
	})
	if err != nil {
		return nil, err
	}
	return f, f.Err()
}

// decompressTo streams the .gz or .zst file fh (named path) into w, within
// b's bounds (nil: DefaultMaxDecompressedFile). Bad compressed data, or
// data over a bound (wrapping ErrDecompressLimit), is a *CorruptError; a
// failed write is returned as it is.
func decompressTo(fh io.Reader, path string, w io.Writer, b *DecompressBudget) error {
	n, err := decompressCounted(fh, path, w, b)
	if err == nil && b != nil {
		b.used.Add(n)
	}
	return err
}

// decompressCounted is decompressTo, returning the bytes written and
// leaving the budget's count to the caller.
func decompressCounted(fh io.Reader, path string, w io.Writer, b *DecompressBudget) (int64, error) {
	limit := int64(DefaultMaxDecompressedFile)
	if b != nil {
		limit = min(b.perFile, b.total-b.used.Load())
	}
	r, release, err := b.reader(fh, path)
	if err != nil {
		return 0, &CorruptError{File: path, Err: err}
	}
	defer release()
	er := &errReader{r: io.LimitReader(r, max(limit, 0)+1)}
	n, err := io.Copy(w, er)
	if er.err != nil {
		return 0, &CorruptError{File: path, Err: er.err}
	}
	if err != nil {
		return 0, err
	}
	if n > limit {
		return 0, &CorruptError{File: path, Err: fmt.Errorf("%w: more than %d bytes", ErrDecompressLimit, limit)}
	}
	return n, nil
}

// errReader keeps its reader's error, to tell it from the writer's.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}
