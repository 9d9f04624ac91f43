package symfile

import (
	"bytes"
	"os"
	"sync"
	"sync/atomic"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/mapfault"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"
)

// File is an indexed symbol file ready for lookups. It is safe for concurrent use.
type File struct {
	name   string
	data   []byte
	module ModuleLine
	codeID string
	unmap  func() error
	pubMem *reservation // memory reserved for pubs (reservePublics), or nil
	origin int          // fromMemory, fromBuild or fromIndex (indexdir.go)
	// written, when not nil, is closed once the index being written from
	// this File's arrays (IndexDir.store) is done: Close waits for it.
	written chan struct{}
	errs    []lineError
	limit   uint64 // records at or after this offset are not used (Breakpad bails after 100 errors)

	funcs   funcTable  // accepted FUNC ranges, sorted
	pubs    pubTable   // sorted by address, first of each address
	cfi     cfiTable   // accepted STACK CFI INIT ranges, sorted
	win     []winEntry // file order
	winType []uint8
	info    []uint64  // offsets of INFO records
	files   []idEntry // sorted by id, file order among equal ids
	origins []idEntry

	winOnce sync.Once
	winMaps [5]containedMap // per STACK WIN type

	cfiParsed lazySlots[cfiBlock] // by index into cfi (cfiblock.go)
	parsed    lazySlots[function] // by index into funcs (lookup.go)
	// cfiProgramBytes is the memory of the compiled rows (cfiprogram.go),
	// bounded by maxCFIProgramBytes.
	cfiProgramBytes atomic.Int64

	parsedBytes atomic.Int64 // memory of parsed and cfiParsed, estimated (HeapBytes)
}

// Open reads the symbol file at path, memory-mapped. A name ending in .gz
// or .zst is a compressed file, which Open cannot read (ErrNoDecompressor):
// OpenWithBudget reads it with a budget's Decompressor (symcompress.Open).
//
// When some lines are malformed, Open returns the File together with a
// *CorruptError naming the first bad line: like Breakpad, the records that
// parsed are still usable, and the caller decides whether to report the
// module's symbols as corrupt.
func Open(path string) (*File, error) {
	if isCompressed(path) {
		return OpenWithBudget(path, nil)
	}
	fh, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return openMapped(fh, st.Size(), path)
}

// NewFile indexes a symbol file held in data; name is used in errors.
// The File keeps data; the caller must not modify it. Malformed lines are
// reported as by Open.
func NewFile(data []byte, name string) (*File, error) {
	f := &File{name: name, data: data}
	f.buildIndex(defaultChunkSize, nil)
	return f, f.Err()
}

// Err returns a *CorruptError for the first malformed line, or nil.
func (f *File) Err() error {
	if len(f.errs) == 0 {
		return nil
	}
	return f.corrupt(f.errs[0])
}

// Errors returns every malformed line found (at most 101: Breakpad stops
// loading a file after 100 errors, and so do we).
func (f *File) Errors() []*CorruptError {
	out := make([]*CorruptError, len(f.errs))
	for i, e := range f.errs {
		out[i] = f.corrupt(e)
	}
	return out
}

// Close releases the mapping of a File made by Open. Lookups must not follow.
// For a File an IndexDir built, it first waits until its index is written.
func (f *File) Close() error {
	if f.written != nil {
		<-f.written
	}
	if f.unmap == nil {
		return nil
	}
	u := f.unmap
	f.unmap = nil
	return u()
}

// Name is the path or name the File was made from.
func (f *File) Name() string { return f.name }

// SetName changes the name the File and its errors give, as when a file
// checked at a temporary path is then moved into a cache. Call it before
// the File is shared.
func (f *File) SetName(name string) { f.name = name }

// Size is the size of the (decompressed) symbol data in bytes.
func (f *File) Size() int { return len(f.data) }

// Module returns the MODULE record.
func (f *File) Module() ModuleLine { return f.module }

// CodeID returns the INFO CODE_ID value, or "".
func (f *File) CodeID() string { return f.codeID }

// Info returns the value of the first "INFO <key> <value>" record with that
// key (CODE_ID, GENERATOR, URL, ...), the rest of the line after the key.
// For CODE_ID that includes the code file name when dump_syms wrote one;
// CodeID gives the identifier alone.
func (f *File) Info(key string) (string, bool) {
	defer mapfault.Name(f.name) // fault.go
	for _, off := range f.info {
		var buf [2][]byte
		t, ok := tokenize(f.recordAt(off, pINFO), 2, buf[:0])
		if ok && string(t[0]) == key {
			return string(t[1]), true
		}
	}
	return "", false
}

// lineFrom returns the line starting at off, without its line ending.
func (f *File) lineFrom(off uint64) []byte {
	if off >= uint64(len(f.data)) {
		return nil
	}
	rest := f.data[off:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	for len(rest) > 0 && rest[len(rest)-1] == '\r' {
		rest = rest[:len(rest)-1]
	}
	return rest
}

// fileName returns the name of FILE id, or "" and false.
func (f *File) fileName(id int64) (string, bool) {
	off, ok := findID(f.files, id)
	if !ok {
		return "", false
	}
	_, name, ok := parseFileRecord(f.recordAt(off, pFILE))
	return string(name), ok
}

func (f *File) originName(id int64) (string, bool) {
	off, ok := findID(f.origins, id)
	if !ok {
		return "", false
	}
	_, name, ok := parseInlineOrigin(f.recordAt(off, pINLINE_ORIGIN))
	return string(name), ok
}

func findID(ids []idEntry, id int64) (uint64, bool) {
	lo, hi := 0, len(ids)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ids[m].id < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(ids) && ids[lo].id == id {
		return ids[lo].off, true
	}
	return 0, false
}

// openRegular opens path for reading when it is a regular file. It looks
// before it opens: opening a FIFO named as a symbol file would block until
// something writes to it.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	return regfile.Open(path) // a FIFO neither blocks nor is read
}
