package symfile

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/mapfault"
)

// maxErrors is Breakpad's kMaxErrorsBeforeBailing: after more errors than
// this, loading stops and later records are not used.
const maxErrors = 100

// defaultChunkSize is the unit of the parallel index pass. After a chunk of a
// memory-mapped file is indexed its pages are released (see release), so the
// pass never holds more than a few chunks resident.
const defaultChunkSize = 8 << 20

// maxInfo bounds the INFO records kept (dump_syms writes one or two).
const maxInfo = 64

type funcEntry struct {
	base, high uint64 // the address range, high inclusive
	off        uint64 // offset of the FUNC line
	end        uint64 // end of its last line or INLINE record (off's line end when none)
}

func (e funcEntry) lo() uint64  { return e.base }
func (e funcEntry) hi() uint64  { return e.high }
func (e funcEntry) ord() uint64 { return e.off }

type pubEntry struct {
	addr uint64
	off  uint64
}

// rangeEntry is a STACK CFI INIT record's range and offset.
type rangeEntry struct {
	base, high uint64
	off        uint64
}

func (e rangeEntry) lo() uint64  { return e.base }
func (e rangeEntry) hi() uint64  { return e.high }
func (e rangeEntry) ord() uint64 { return e.off }

// winEntry is a STACK WIN record's range and offset.
type winEntry struct {
	addr, size uint64
	off        uint64
}

// highOf returns base+size-1, or false when Breakpad's RangeMap would
// refuse the range (size 0, or overflow).
func highOf(base, size uint64) (uint64, bool) {
	if size == 0 || base+(size-1) < base {
		return 0, false
	}
	return base + size - 1, true
}

type idEntry struct {
	id  int64
	off uint64
}

type lineError struct {
	line int    // 1-based; chunk-local until merged
	off  uint64 // offset of the line
	msg  string
}

// owner states of the record that line data attaches to.
const (
	ownerNone    = -1 // no function: line data is an error (after PUBLIC, a failed FUNC, or at file start)
	ownerInherit = -2 // chunk start: whatever the previous chunk ended with
	ownerSink    = -3 // a FUNC Breakpad parses but cannot store (size 0): its lines are valid but unused
)

type chunkIndex struct {
	funcs []funcEntry
	pubs  []pubEntry
	cfi   []rangeEntry
	// The records placed in narrow arenas (sequencer.place), which then
	// replace funcs, pubs and cfi.
	funcs32 []funcEntry32
	pubs32  []pubEntry32
	cfi32   []cfiEntry32
	win     []winEntry // type kept in winType
	winType []uint8
	files   []idEntry
	origins []idEntry
	module  *ModuleLine
	codeID  []byte
	info    []uint64 // offsets of INFO records
	lines   int
	errs    []lineError
	// lead* describe line data before the chunk's first FUNC or PUBLIC,
	// which belongs to the previous chunk's last function.
	// leadErrs are the well-formed line records there (errors only if no
	// function precedes), leadBad the malformed ones (errors either way,
	// with a message that depends on the same question).
	leadEnd  uint64
	leadErrs []lineError
	leadBad  []lineError
	tail     int // the owner at the chunk end: ownerNone, ownerInherit, ownerSink or an index into funcs
}

func (c *chunkIndex) addErr(line int, off uint64, msg string) {
	if len(c.errs) <= maxErrors {
		c.errs = append(c.errs, lineError{line, off, msg})
	}
}

var (
	pFUNC          = []byte("FUNC ")
	pFILE          = []byte("FILE ")
	pPUBLIC        = []byte("PUBLIC ")
	pSTACK         = []byte("STACK ")
	pSTACKCFI      = []byte("STACK CFI ")
	pSTACKCFIINIT  = []byte("STACK CFI INIT ")
	pMODULE        = []byte("MODULE ")
	pINFO          = []byte("INFO ")
	pINFOCODEID    = []byte("INFO CODE_ID ")
	pINLINE        = []byte("INLINE ")
	pINLINE_ORIGIN = []byte("INLINE_ORIGIN ")
)

// indexChunkInto indexes data[start:end], which begins at a line start,
// into c, new from chunkScratch.start or holding the lines of the chunk
// before data[start:] (a chunk may be indexed in several calls, each
// ending at a line end: readPieces). data holds the file's bytes from
// offset base on: the offsets recorded are base+position in data.
func indexChunkInto(data []byte, start, end int, c *chunkIndex, base uint64) *chunkIndex {
	owner := c.tail // the owner so far: FUNC and PUBLIC records set both
	lineNo := c.lines
	pos := start
	for pos < end {
		// Fast path for the most common record, a well-formed line record:
		// check its shape while looking for its end.
		if owner != ownerNone {
			if contentEnd, next, ok := scanLineRecord(data, pos, end); ok {
				lineNo++
				c.attach(owner, lineNo, base+uint64(pos), base+uint64(contentEnd), false)
				pos = next
				continue
			}
		}
		// Next, STACK CFI records other than INIT, a third of the lines
		// of a file with CFI: checked in the same pass that finds their end.
		if at, valid, ok := scanCFIDelta(data, pos, end); ok {
			lineNo++
			if !valid {
				c.addErr(lineNo, base+uint64(pos), "malformed STACK CFI record")
			}
			pos = lineAfter(data, at, end)
			continue
		}
		if at, ok := c.scanCFIInit(data, pos, end, base+uint64(pos)); ok {
			lineNo++
			pos = lineAfter(data, at, end)
			continue
		}
		nl := bytes.IndexByte(data[pos:end], '\n')
		next := end
		lineEnd := end
		if nl >= 0 {
			lineEnd = pos + nl
			next = lineEnd + 1
		}
		lineNo++
		line := data[pos:lineEnd]
		for len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		off := base + uint64(pos)
		pos = next
		if len(line) == 0 {
			continue
		}
		if c.indexRecord(line, lineNo, off, &owner) {
			continue
		}
		// Anything else is a source line record, as for Breakpad.
		c.indexLine(line, lineNo, off, owner)
	}
	c.lines = lineNo
	return c
}

// indexRecord indexes a record other than a source line record, and
// reports whether line was one; owner is the function that line records
// and INLINE records attach to, which FUNC and PUBLIC records change.
func (c *chunkIndex) indexRecord(line []byte, lineNo int, off uint64, owner *int) bool {
	switch line[0] {
	case 'S':
		return c.indexStack(line, lineNo, off)
	case 'F':
		if bytes.HasPrefix(line, pFUNC) {
			c.indexFunc(line, lineNo, off, owner)
			return true
		}
		if bytes.HasPrefix(line, pFILE) {
			id, _, ok := parseFileRecord(line[len(pFILE):])
			if !ok {
				c.addErr(lineNo, off, "malformed FILE record")
			} else {
				c.files = append(c.files, idEntry{id, off})
			}
			return true
		}
	case 'P':
		if bytes.HasPrefix(line, pPUBLIC) {
			*owner = ownerNone
			c.tail = *owner
			var f [2]uint64 // address, parameter size
			ok := hexFieldsFast(line[len(pPUBLIC):], f[:])
			addr := f[0]
			if !ok {
				var r publicRecord
				r, ok = parsePublic(line[len(pPUBLIC):])
				addr = r.addr
			}
			if !ok {
				c.addErr(lineNo, off, "malformed PUBLIC record")
			} else if addr != 0 { // Breakpad ignores PUBLIC records at 0
				c.pubs = append(c.pubs, pubEntry{addr, off})
			}
			return true
		}
	case 'M':
		if bytes.HasPrefix(line, pMODULE) {
			c.indexModule(line)
			return true
		}
	case 'I':
		return c.indexI(line, lineNo, off, *owner)
	}
	return false
}

// indexStack indexes a STACK CFI, STACK CFI INIT or STACK WIN record.
func (c *chunkIndex) indexStack(line []byte, lineNo int, off uint64) bool {
	if isStackCFI(line) {
		if bytes.HasPrefix(line, pSTACKCFIINIT) {
			if !c.stackCFIInit(line[len(pSTACKCFIINIT):], off) {
				c.addErr(lineNo, off, "malformed STACK CFI INIT record")
			}
		} else if !validCFIDelta(line[len(pSTACKCFI):]) {
			c.addErr(lineNo, off, "malformed STACK CFI record")
		}
		return true
	}
	if bytes.HasPrefix(line, pSTACK) {
		if !c.stackOther(line[len(pSTACK):], off) {
			c.addErr(lineNo, off, "malformed STACK record")
		}
		return true
	}
	return false
}

// indexFunc indexes a FUNC record, which owns the records after it.
func (c *chunkIndex) indexFunc(line []byte, lineNo int, off uint64, owner *int) {
	var r funcRecord
	var f [3]uint64 // address, size, parameter size
	ok := hexFieldsFast(line[len(pFUNC):], f[:])
	if ok {
		r.addr, r.size = f[0], f[1]
	} else {
		r, ok = parseFunc(line[len(pFUNC):])
	}
	if !ok {
		c.addErr(lineNo, off, "malformed FUNC record")
		*owner = ownerNone
	} else if high, ok := highOf(r.addr, r.size); ok {
		*owner = len(c.funcs)
		c.funcs = append(c.funcs, funcEntry{r.addr, high, off, off + uint64(len(line))})
	} else {
		*owner = ownerSink
	}
	c.tail = *owner
}

// indexModule keeps the first MODULE record.
func (c *chunkIndex) indexModule(line []byte) {
	if c.module != nil {
		return
	}
	var buf [4][]byte
	if t, ok := tokenize(line[len(pMODULE):], 4, buf[:0]); ok {
		c.module = &ModuleLine{OS: string(t[0]), Arch: string(t[1]), ID: string(t[2]), Name: string(t[3])}
	} else {
		c.module = &ModuleLine{}
	}
}

// indexI indexes an INLINE, INLINE_ORIGIN or INFO record.
func (c *chunkIndex) indexI(line []byte, lineNo int, off uint64, owner int) bool {
	switch {
	case bytes.HasPrefix(line, pINLINE):
		// INLINE records are parsed with their function; like
		// Breakpad, a bad one does not make the file corrupt.
		c.attach(owner, lineNo, off, off+uint64(len(line)), true)
	case bytes.HasPrefix(line, pINLINE_ORIGIN):
		if id, _, ok := parseInlineOrigin(line[len(pINLINE_ORIGIN):]); ok {
			c.origins = append(c.origins, idEntry{id, off})
		}
	case bytes.HasPrefix(line, pINFO):
		if len(c.info) < maxInfo {
			c.info = append(c.info, off)
		}
		if c.codeID == nil && bytes.HasPrefix(line, pINFOCODEID) {
			var buf [2][]byte
			t := splitAll(line[len(pINFOCODEID):], buf[:0], 2)
			if len(t) > 0 {
				c.codeID = bytes.Clone(t[0]) // data may be a buffer read again
			}
		}
	default:
		return false
	}
	return true
}

// indexLine indexes a source line record of the function owner.
func (c *chunkIndex) indexLine(line []byte, lineNo int, off uint64, owner int) {
	if owner == ownerNone {
		c.addErr(lineNo, off, "source line data without a function")
		return
	}
	if _, ok := parseLine(line); !ok {
		if owner == ownerInherit {
			if len(c.leadBad) <= maxErrors {
				c.leadBad = append(c.leadBad, lineError{lineNo, off, "malformed source line record"})
			}
		} else {
			c.addErr(lineNo, off, "malformed source line record")
		}
		return
	}
	c.attach(owner, lineNo, off, off+uint64(len(line)), false)
}

// attach extends the current function's block over a line or INLINE record.
func (c *chunkIndex) attach(owner, lineNo int, off, end uint64, inline bool) {
	switch {
	case owner >= 0:
		c.funcs[owner].end = end
	case owner == ownerInherit:
		c.leadEnd = end
		if !inline && len(c.leadErrs) <= maxErrors {
			c.leadErrs = append(c.leadErrs, lineError{lineNo, off, "source line data without a function"})
		}
	}
	// ownerNone with INLINE: Breakpad would dereference a null function;
	// the record is ignored.
}

func (c *chunkIndex) stackCFIInit(rest []byte, off uint64) bool {
	// Fast path: "addr size rules" with single spaces and plain hex.
	if a, n := fastHex(rest); n > 0 && n < len(rest) && rest[n] == ' ' {
		if s, m := fastHex(rest[n+1:]); m > 0 && n+1+m+1 < len(rest) && rest[n+1+m] == ' ' && !isSep(rest[n+1+m+1]) {
			if high, ok := highOf(a, s); ok {
				c.cfi = append(c.cfi, rangeEntry{a, high, off})
			}
			return true
		}
	}
	var buf [3][]byte
	t := splitAll(rest, buf[:0], 3)
	if len(t) < 3 {
		return false
	}
	if a := looseHex(t[0]); true {
		if high, ok := highOf(a, looseHex(t[1])); ok {
			c.cfi = append(c.cfi, rangeEntry{a, high, off})
		}
	}
	return true
}

// validCFIDelta: Breakpad requires an address token and some rules after it.
func validCFIDelta(rest []byte) bool {
	i := 0
	for i < len(rest) && isSep(rest[i]) {
		i++
	}
	for i < len(rest) && !isSep(rest[i]) {
		i++
	}
	for i < len(rest) && isSep(rest[i]) {
		i++
	}
	return i < len(rest)
}

func (c *chunkIndex) stackOther(rest []byte, off uint64) bool {
	i := 0
	for i < len(rest) && rest[i] == ' ' {
		i++
	}
	j := i
	for j < len(rest) && !isSep(rest[j]) {
		j++
	}
	if string(rest[i:j]) == "CFI" && j < len(rest) {
		// Only reached with unusual spacing ("STACK  CFI ..."): the usual
		// form is handled by the caller's fast path.
		r := rest[j+1:]
		k := 0
		for k < len(r) && isSep(r[k]) {
			k++
		}
		if bytes.HasPrefix(r[k:], []byte("INIT")) && (k+4 == len(r) || isSep(r[k+4])) {
			return k+4 < len(r) && c.stackCFIInit(r[k+5:], off)
		}
		return validCFIDelta(r)
	}
	if string(rest[i:j]) != "WIN" || j >= len(rest) {
		return false // other platforms are errors, as in Breakpad
	}
	w, ok := parseStackWin(rest[j+1:])
	if !ok {
		return false
	}
	c.win = append(c.win, winEntry{w.RVA, w.CodeSize, off})
	c.winType = append(c.winType, uint8(w.Type))
	return true
}

// diskSource is the file that f.data maps, for the index pass to read with
// pread instead of through the mapping.
type diskSource struct {
	r io.ReaderAt
	// release drops the pages of data[lo:hi] from the process (releasePages).
	release func(lo, hi int)
	// advise gives memory advice to the arenas (hugeAdvice); nil: madvise.
	advise func(b []byte, advice int) error
	// wide keeps the wide layout (indexlayout.go), as a file of 4 GiB or
	// more does: tests set it for smaller files.
	wide bool
}

// buildIndex runs the index pass over data, in parallel chunks, and merges
// the results. disk, when not nil, is the file data maps: each chunk is then
// read into a worker's buffer (see indexChunks), and the pages of the
// mapping that the pass touches are released, so the process's RSS stays
// far below the file's size.
func (f *File) buildIndex(chunkSize int, disk *diskSource) {
	data := f.data
	var bounds []int
	for pos := 0; pos < len(data); {
		end := pos + chunkSize
		if end >= len(data) {
			end = len(data)
		} else if nl := bytes.IndexByte(data[end:], '\n'); nl >= 0 {
			end += nl + 1
		} else {
			end = len(data)
		}
		bounds = append(bounds, pos)
		pos = end
	}
	bounds = append(bounds, len(data))
	n := len(bounds) - 1
	chunks := make([]*chunkIndex, n)
	workers := min(runtime.GOMAXPROCS(0), n)
	if disk != nil {
		disk.release(0, len(data)) // the pages that finding the bounds touched
	}
	seq := newSequencer(f, bounds, chunkSize, disk)
	var room publicRoom
	if seq == nil {
		room = publicSlots(data, bounds, workers, disk)
	}
	var next atomic.Int64
	var g mapfault.Group // a fault on the mapping, or a bug, goes to the caller (fault.go)
	if seq != nil {
		defer seq.releaseScratch() // the chunks' records are in the arenas by then
	}
	for range workers {
		g.Go(func() { f.indexChunks(bounds, chunks, room.slots, &next, disk, chunkSize, seq) })
	}
	g.Wait()
	if seq != nil {
		seq.lendScratch()
	}
	f.merge(chunks, room, seq)
	if seq != nil {
		seq.funcs.keep(f.funcs)
		seq.cfi.keep(f.cfi)
		seq.pubs.keep(f.pubs)
	}
}

// publicSlots returns one array with room for every line of data that may
// be a PUBLIC record (it starts with "PUBLIC "), and each chunk's part of
// it, empty with its room as capacity. The chunks append their records
// there and merge closes the gaps in place, so a file of PUBLIC records
// holds 16 bytes per record once: appending to slices of their own, then
// copying them into one, held up to three times that (a 500 MiB .sym.gz of
// PUBLIC records peaked at 705 MB; docs/limits.md). Counting reads the file
// once more: a file on disk with pread, in blocks that stay in the CPU's
// cache (countPublicAt); through its mapping, it faulted every page in and
// released it after, and took a quarter of a first run on the stress file.
func publicSlots(data []byte, bounds []int, workers int, disk *diskSource) publicRoom {
	n := len(bounds) - 1
	counts := make([]int, n)
	var next atomic.Int64
	var g mapfault.Group
	for range workers {
		g.Go(func() {
			var buf []byte
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				lo, hi := bounds[i], bounds[i+1]
				k, ok := 0, false
				if disk != nil {
					k, ok = countPublicAt(disk.r, &buf, lo, hi)
				}
				if !ok {
					k = countPublicLines(data[lo:hi], '\n')
					if disk != nil {
						disk.release(lo, hi)
					}
				}
				counts[i] = k
			}
		})
	}
	g.Wait()
	all := make([]pubEntry, sumOf(counts))
	return publicRoom{all: all, slots: carve(all, counts)}
}

// carve cuts all into empty slots with room for sizes[i] records each.
func carve(all []pubEntry, sizes []int) [][]pubEntry {
	slots := make([][]pubEntry, len(sizes))
	at := 0
	for i, k := range sizes {
		slots[i] = all[at : at : at+k]
		at += k
	}
	return slots
}

// countPublicLines counts the lines of chunk (which starts at a line start)
// that start "PUBLIC ". It looks for the record's name and then at the
// byte before: bytes.Count of "\nPUBLIC " stopped at every newline, as
// bytes.Index does with a separator's frequent first byte, and took a
// fifth of a first run on the stress file.
// before is the byte before chunk ('\n' at a line start).
func countPublicLines(chunk []byte, before byte) int {
	n := 0
	for i := 0; ; {
		j := bytes.Index(chunk[i:], pPUBLIC)
		if j < 0 {
			return n
		}
		j += i
		if (j == 0 && before == '\n') || (j > 0 && chunk[j-1] == '\n') {
			n++
		}
		i = j + len(pPUBLIC)
	}
}

// countBlock is the size of countPublicAt's reads: small enough that the
// block is still in the CPU's cache when it is scanned.
const countBlock = 256 << 10

// countPublicAt counts the lines starting "PUBLIC " in the file's bytes
// [lo, hi) (lo a line start), reading them in blocks into *buf. It reports
// false when a read fails or comes back short.
func countPublicAt(r io.ReaderAt, buf *[]byte, lo, hi int) (int, bool) {
	over := len(pPUBLIC) - 1 // a record starting in one block ends in the next
	if cap(*buf) < countBlock+over {
		*buf = make([]byte, countBlock+over)
	}
	n := 0
	before := byte('\n')
	for p := lo; p < hi; p += countBlock {
		b := (*buf)[:min(countBlock+over, hi-p)]
		if k, err := r.ReadAt(b, int64(p)); k != len(b) || (err != nil && err != io.EOF) {
			return 0, false
		}
		// Count the records starting in this block; the overlap only
		// completes the last ones.
		if len(b) > countBlock {
			n += countPublicLines(b, before) - countPublicLines(b[countBlock:], b[countBlock-1])
			before = b[countBlock-1]
		} else {
			n += countPublicLines(b, before)
		}
	}
	return n, true
}

// publicRoom is publicSlots' array and each chunk's part of it.
type publicRoom struct {
	all   []pubEntry
	slots [][]pubEntry
}

func sumOf(v []int) int {
	t := 0
	for _, x := range v {
		t += x
	}
	return t
}

// indexChunks indexes chunks, taking the next one from next until none is
// left.
//
// A chunk of a file on disk is read with pread, a piece at a time
// (readPieces), into the worker's buffer, reused from chunk to chunk:
// sequential reads cost the kernel one copy from its page cache, where
// scanning the mapping cost a page fault per 64 KiB, and advice to map the
// pages in and to drop them after. A chunk longer than twice chunkSize
// (one very long line) is scanned through the mapping instead, so the
// buffer stays bounded; so is the rest of a chunk whose read fails or
// comes back short (a file truncated meanwhile): reading the
// mapping then faults, and the fault is reported as before (fault.go).
func (f *File) indexChunks(bounds []int, chunks []*chunkIndex, slots [][]pubEntry, next *atomic.Int64, disk *diskSource, chunkSize int, seq *sequencer) {
	data := f.data
	var buf []byte
	var scratch chunkScratch
	var sortBuf []rangeEntry // sortRanges' buffer, this worker's
	if seq != nil {
		scratch = seq.newScratch()
		sortBuf = seq.newSortBuf()
	}
	n := len(chunks)
	finished := false
	defer func() {
		if seq != nil && !finished {
			seq.stop() // a fault: the others must not wait for this chunk
		}
	}()
	for {
		i := int(next.Add(1) - 1)
		if i >= n {
			finished = true
			return
		}
		lo, hi := bounds[i], bounds[i+1]
		var c *chunkIndex
		if seq != nil {
			c = scratch.start(scratch.pubs[:0])
		} else {
			c = scratch.start(slots[i])
		}
		if disk == nil {
			indexChunkInto(data, lo, hi, c, 0)
		} else if p := readPieces(disk.r, &buf, lo, hi, chunkSize, readPiece, c); p < hi {
			prefaultPages(data, p, hi)
			indexChunkInto(data, p, hi, c, 0)
			disk.release(p, hi)
		}
		// Sorting here, in parallel, leaves merge only sorted runs to merge.
		c.sortRuns(&sortBuf)
		chunks[i] = c
		if seq != nil {
			seq.done(i, c, &scratch)
		} else {
			scratch.keep(c)
		}
	}
}

// chunkScratch is a worker's arrays for the FUNC and STACK CFI INIT records
// of the chunk it indexes, reused from chunk to chunk: appending to new
// arrays for every chunk grew each several times, copying and faulting in
// fresh memory (a tenth of a first run on the stress file). Each chunk keeps
// an exact copy (keep), or a sequencer copies its records to its arenas.
type chunkScratch struct {
	funcs []funcEntry
	cfi   []rangeEntry
	pubs  []pubEntry // for a sequencer only: else a slot of publicSlots
}

// start returns a new chunk's index, appending its PUBLIC records to pubs
// (a slot of publicSlots, large enough for them all, or nil).
func (s *chunkScratch) start(pubs []pubEntry) *chunkIndex {
	return &chunkIndex{tail: ownerInherit, pubs: pubs, funcs: s.funcs[:0], cfi: s.cfi[:0]}
}

// keep gives c copies of its arrays and takes the arrays back.
func (s *chunkScratch) keep(c *chunkIndex) {
	s.funcs, s.cfi = c.funcs[:0], c.cfi[:0]
	c.funcs, c.cfi = slices.Clone(c.funcs), slices.Clone(c.cfi)
}

// take takes c's arrays back, for a sequencer that copies c's records.
func (s *chunkScratch) take(c *chunkIndex) {
	s.funcs, s.cfi, s.pubs = c.funcs[:0], c.cfi[:0], c.pubs[:0]
}

// readPiece is the size of the index pass's reads: small enough that the
// bytes the kernel copies into the buffer are still in the CPU's cache
// when the pass reads them, and that the buffer is a few fresh pages.
// A worker's 9 MiB buffer for a whole chunk cost 4,600 page faults on
// the stress file, and each byte went to memory and back.
const readPiece = 256 << 10

// readPieces reads the file's bytes [lo, hi) into *buf, piece bytes at a
// time (readPiece), and indexes into c each piece's lines up to its last
// line end; the line cut at the end starts the next piece. It returns where
// it stopped: hi, or the start of the first line it could not read (a
// read failed or came back short: the file was truncated meanwhile), or
// lo for a chunk longer than twice chunkSize (one very long line), which
// the caller then indexes through the mapping, so the buffer stays
// bounded.
func readPieces(r io.ReaderAt, buf *[]byte, lo, hi, chunkSize, piece int, c *chunkIndex) int {
	if hi-lo > 2*chunkSize {
		return lo
	}
	p, have := lo, 0 // (*buf)[:have] holds the file's bytes from p on
	for p < hi {
		want := min(max(piece, 2*have), hi-p)
		if cap(*buf) < want {
			grown := make([]byte, want)
			copy(grown, (*buf)[:have])
			*buf = grown
		}
		b := (*buf)[:want]
		k, err := r.ReadAt(b[have:], int64(p+have))
		if k != want-have || (err != nil && err != io.EOF) {
			return p
		}
		end := want
		if p+want < hi {
			nl := bytes.LastIndexByte(b[have:], '\n')
			if nl < 0 { // no line ends in the piece: read more of it
				have = want
				continue
			}
			end = have + nl + 1
		}
		indexChunkInto(b, 0, end, c, uint64(p))
		have = copy(b, b[end:])
		p += end
	}
	return p
}

// sortRuns sorts the chunk's ranges and PUBLIC records by address, keeping
// c.tail on the same function. A chunk's records are few (thousands) and
// mostly in order: pdqsort finds the order in one pass, where
// sortByAddr's merge of the runs allocated a copy of the array per chunk.
func (c *chunkIndex) sortRuns(buf *[]rangeEntry) {
	sortChunk(c.pubs, cmpPub)
	sortRanges(c.cfi, buf)
	if c.tail < 0 {
		sortChunk(c.funcs, cmpFunc)
		return
	}
	tailOff := c.funcs[c.tail].off
	sortChunk(c.funcs, cmpFunc)
	c.tail = slices.IndexFunc(c.funcs, func(e funcEntry) bool { return e.off == tailOff })
}

// sortRanges sorts a chunk's STACK CFI INIT records in cmpRange's order.
// They come in file order, so a stable sort by address alone gives it;
// and they are often out of order (FDEs in .eh_frame's order: runs of 6
// to 55 records in the stress file), where pdqsort called cmpRange
// through a function value 13 times per record (about 4% of a first run).
// A radix sort of the addresses, less the chunk's lowest, a byte at a
// time over the bytes they differ in, moves each record once per byte,
// without a comparison (buf holds the other half of each pass).
func sortRanges(in []rangeEntry, buf *[]rangeEntry) {
	if len(in) < 64 {
		sortChunk(in, cmpRange)
		return
	}
	lo, hi := in[0].base, in[0].base
	inOrder, byOff := true, true
	for i := 1; i < len(in); i++ {
		b := in[i].base
		lo, hi = min(lo, b), max(hi, b)
		inOrder = inOrder && b >= in[i-1].base
		byOff = byOff && in[i].off > in[i-1].off
	}
	switch {
	case inOrder && byOff:
		return
	case !byOff: // not in file order (never so in the index pass)
		sortChunk(in, cmpRange)
		return
	}
	if cap(*buf) < len(in) {
		*buf = make([]rangeEntry, len(in))
	}
	src, dst := in, (*buf)[:len(in)]
	for shift := 0; shift < bits.Len64(hi-lo); shift += 8 {
		var at [256]int
		for _, e := range src {
			at[byte((e.base-lo)>>shift)]++
		}
		sum := 0
		for d, n := range at {
			at[d] = sum
			sum += n
		}
		for _, e := range src {
			d := byte((e.base - lo) >> shift)
			dst[at[d]] = e
			at[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &in[0] {
		copy(in, src)
	}
}

// sortChunk sorts a chunk's records, which are usually in order already.
func sortChunk[T any](in []T, cmp func(a, b T) int) {
	if !slices.IsSortedFunc(in, cmp) {
		slices.SortFunc(in, cmp)
	}
}

// merge combines the chunks' results: serially the little that depends
// on the chunks before (function blocks that continue into the next chunk,
// error line numbers), then each array on its own goroutine: sorted in
// place in its arena (sequencer), or merged from the chunks' sorted runs
// into its presized final slice.
func (f *File) merge(chunks []*chunkIndex, room publicRoom, seq *sequencer) {
	errs := f.joinChunks(chunks)

	var funcs funcTable
	var pubs pubTable
	var cfi cfiTable
	var dups []uint64
	var wg sync.WaitGroup
	wg.Go(func() {
		funcs = mergeKind(chunks, seqKind(seq, func(s *sequencer) *kindArena[funcEntry, funcEntry32] { return &s.funcs }),
			func(c *chunkIndex) []funcEntry { return c.funcs }, func(c *chunkIndex) []funcEntry32 { return c.funcs32 },
			cmpFunc, cmpFunc32)
	})
	wg.Go(func() {
		cfi = mergeKind(chunks, seqKind(seq, func(s *sequencer) *kindArena[rangeEntry, cfiEntry32] { return &s.cfi }),
			func(c *chunkIndex) []rangeEntry { return c.cfi }, func(c *chunkIndex) []cfiEntry32 { return c.cfi32 },
			cmpRange, cmpRange32)
	})
	wg.Go(func() {
		if seq != nil {
			pubs = seq.pubs.sorted(chunks, func(c *chunkIndex) []pubEntry { return c.pubs },
				func(c *chunkIndex) []pubEntry32 { return c.pubs32 }, cmpPub, cmpPub32)
		} else {
			pubs.wide = gatherPublics(chunks, room)
			sortByAddr(pubs.wide, cmpPub)
		}
		var d32 []uint64
		pubs.wide, dups = firstPublics(pubs.wide)
		pubs.narrow, d32 = firstPublics(pubs.narrow)
		dups = append(dups, d32...)
	})
	wg.Go(func() {
		f.files = concat(chunks, func(c *chunkIndex) []idEntry { return c.files })
		f.origins = concat(chunks, func(c *chunkIndex) []idEntry { return c.origins })
		slices.SortStableFunc(f.files, func(a, b idEntry) int { return cmp.Compare(a.id, b.id) })
		slices.SortStableFunc(f.origins, func(a, b idEntry) int { return cmp.Compare(a.id, b.id) })
	})
	win := concat(chunks, func(c *chunkIndex) []winEntry { return c.win })
	winType := concat(chunks, func(c *chunkIndex) []uint8 { return c.winType })
	wg.Wait()

	if len(dups) > 0 {
		slices.Sort(dups)
		dups = dups[:min(len(dups), maxErrors+1)]
		for i, line := range f.linesAt(dups) {
			errs = append(errs, lineError{line: line, off: dups[i], msg: "duplicate PUBLIC address"})
		}
		slices.SortStableFunc(errs, func(a, b lineError) int { return a.line - b.line })
	}

	// Breakpad stops loading after more than maxErrors errors.
	limit := uint64(len(f.data))
	if len(errs) > maxErrors {
		limit = errs[maxErrors].off
		errs = errs[:maxErrors+1]
	}
	f.errs = errs

	if limit < uint64(len(f.data)) {
		funcs.dropFrom(limit, funcEntry.ord, funcEntry32.ord)
		cfi.dropFrom(limit, rangeEntry.ord, cfiEntry32.ord)
		pubs.dropFrom(limit, pubEntry.ord, pubEntry32.ord)
	}
	wg.Go(func() { // sorted already: one pass
		funcs.wide = exclusiveFirstWins(funcs.wide)
		funcs.narrow = exclusiveFirstWins(funcs.narrow)
	})
	cfi.wide = exclusiveFirstWins(cfi.wide)
	cfi.narrow = exclusiveFirstWins(cfi.narrow)
	wg.Wait()
	f.funcs, f.pubs, f.cfi = funcs, pubs, cfi
	for i, e := range win {
		if e.off >= limit {
			win, winType = win[:i], winType[:i]
			break
		}
	}
	f.win, f.winType = win, winType
	f.limit = limit
}

// joinChunks does the serial part of merge: it carries each chunk's
// leading line data to the function the chunk before ended in, collects
// the errors with file line numbers, in file order, and takes the MODULE,
// INFO and CODE_ID records.
func (f *File) joinChunks(chunks []*chunkIndex) []lineError {
	var errs []lineError
	var cur *chunkIndex // the chunk of the function line data continues, if any
	curState := ownerNone
	lineBase := 0
	for _, c := range chunks {
		if c.leadEnd != 0 && cur != nil {
			cur.setFuncEnd(curState, c.leadEnd)
		}
		for _, e := range c.leadBad {
			if curState == ownerNone {
				e.msg = "source line data without a function"
			}
			e.line += lineBase
			errs = append(errs, e)
		}
		if curState == ownerNone {
			for _, e := range c.leadErrs {
				e.line += lineBase
				errs = append(errs, e)
			}
		}
		for _, e := range c.errs {
			e.line += lineBase
			errs = append(errs, e)
		}
		switch {
		case c.tail >= 0:
			cur, curState = c, c.tail
		case c.tail == ownerNone || c.tail == ownerSink:
			cur, curState = nil, c.tail
		}
		if len(f.info) < maxInfo {
			f.info = append(f.info, c.info...)
		}
		if c.module != nil && f.module == (ModuleLine{}) {
			f.module = *c.module
		}
		if c.codeID != nil && f.codeID == "" {
			f.codeID = string(c.codeID)
		}
		lineBase += c.lines
	}
	// Lead errors are appended before the chunk's own; restore file order.
	slices.SortStableFunc(errs, func(a, b lineError) int { return a.line - b.line })
	return errs
}

// setFuncEnd extends the block of the chunk's function i to end, in the
// layout the chunk's records are in.
func (c *chunkIndex) setFuncEnd(i int, end uint64) {
	if c.funcs32 != nil {
		c.funcs32[i].end = uint32(end) // narrow: the file is under 4 GiB
		return
	}
	c.funcs[i].end = end
}

// concat copies one array of every chunk into a slice of the total size.
func concat[T any](chunks []*chunkIndex, of func(*chunkIndex) []T) []T {
	n := 0
	for _, c := range chunks {
		n += len(of(c))
	}
	out := make([]T, 0, n)
	for _, c := range chunks {
		out = append(out, of(c)...)
	}
	return out
}

// gatherPublics moves the chunks' PUBLIC records, in order, to the start of
// room.all (where each chunk appended them in its slot: each moves left or
// stays) and returns them there; should a chunk have outgrown its slot (or
// had none), it copies them into a new array instead.
func gatherPublics(chunks []*chunkIndex, room publicRoom) []pubEntry {
	for i, c := range chunks {
		if i >= len(room.slots) || len(c.pubs) > cap(room.slots[i]) {
			return concat(chunks, func(c *chunkIndex) []pubEntry { return c.pubs })
		}
	}
	w := 0
	for _, c := range chunks {
		w += copy(room.all[w:], c.pubs)
		c.pubs = nil
	}
	return room.all[:w]
}

// firstPublics keeps the first PUBLIC record of each address of pubs,
// sorted by cmpPub (Breakpad keeps the first and counts an error for each
// other); it returns the offsets of the others.
func firstPublics[P interface {
	lo() uint64
	ord() uint64
}](pubs []P) ([]P, []uint64) {
	w := 0
	var dups []uint64
	for i, p := range pubs {
		if i > 0 && p.lo() == pubs[w-1].lo() {
			// cmpPub orders equal addresses by offset: pubs[w-1] came first.
			dups = append(dups, p.ord())
			continue
		}
		pubs[w] = p
		w++
	}
	return pubs[:w], dups
}

// cmpPub orders PUBLIC records by address, then file position.
func cmpPub(a, b pubEntry) int {
	if c := cmp.Compare(a.addr, b.addr); c != 0 {
		return c
	}
	return cmp.Compare(a.off, b.off)
}

// cmpFunc is byAddr for FUNC records, cmpRange for STACK CFI INIT records:
// the same order, without the generic methods' indirect calls (the index
// pass sorts every record of the file with them).
func cmpFunc(a, b funcEntry) int {
	if c := cmp.Compare(a.base, b.base); c != 0 {
		return c
	}
	return cmp.Compare(a.off, b.off)
}

func cmpRange(a, b rangeEntry) int {
	if c := cmp.Compare(a.base, b.base); c != 0 {
		return c
	}
	return cmp.Compare(a.off, b.off)
}

// byAddr orders ranges by start address, then file position.
func byAddr[T ranger](a, b T) int {
	if c := cmp.Compare(a.lo(), b.lo()); c != 0 {
		return c
	}
	return cmp.Compare(a.ord(), b.ord())
}

// linesAt returns the 1-based line numbers of the lines starting at the
// sorted offsets offs, in one scan of the file up to the last of them. It is
// used only to report errors.
func (f *File) linesAt(offs []uint64) []int {
	out := make([]int, len(offs))
	line, pos := 1, uint64(0)
	for i, off := range offs {
		off = min(off, uint64(len(f.data)))
		line += bytes.Count(f.data[pos:off], []byte{'\n'})
		pos = off
		out[i] = line
	}
	return out
}

// lineError converts to the error reported for the file.
func (f *File) corrupt(e lineError) *CorruptError {
	return &CorruptError{File: f.name, Line: e.line, Err: fmt.Errorf("%s", e.msg)}
}

// Character classes for scanLineRecord.
const (
	clHex = 1 << iota
	clDec
)

var charClass = [256]uint8{
	'0': clHex | clDec, '1': clHex | clDec, '2': clHex | clDec, '3': clHex | clDec, '4': clHex | clDec,
	'5': clHex | clDec, '6': clHex | clDec, '7': clHex | clDec, '8': clHex | clDec, '9': clHex | clDec,
	'a': clHex, 'b': clHex, 'c': clHex, 'd': clHex, 'e': clHex, 'f': clHex,
	'A': clHex, 'B': clHex, 'C': clHex, 'D': clHex, 'E': clHex, 'F': clHex,
}

// scanLineRecord accepts a line record in canonical form at data[pos:]:
// "hex hex dec dec" with single spaces and no more digits than fit, so it
// is certainly valid for Breakpad. It returns the end of the content, the
// start of the next line, and false for anything else (which the exact
// parser then judges).
func scanLineRecord(data []byte, pos, end int) (contentEnd, next int, ok bool) {
	d := data[:end]
	i, ok := scanField(d, pos, clHex, true)
	if ok {
		i, ok = scanField(d, i, clHex, true)
	}
	if ok {
		i, ok = scanField(d, i, clDec, true)
	}
	if ok {
		i, ok = scanField(d, i, clDec, false)
	}
	if !ok {
		return 0, 0, false
	}
	contentEnd = i
	for i < len(d) && d[i] == '\r' {
		i++
	}
	switch {
	case i == len(d):
		return contentEnd, i, true
	case d[i] == '\n':
		return contentEnd, i + 1, true
	}
	return 0, 0, false
}

// scanField skips 1 to 15 characters of class mask and, when sep, one space.
func scanField(d []byte, i int, mask uint8, sep bool) (int, bool) {
	start := i
	for i < len(d) && charClass[d[i]]&mask != 0 {
		i++
	}
	if n := i - start; n == 0 || n > 15 {
		return 0, false
	}
	if sep {
		if i >= len(d) || d[i] != ' ' {
			return 0, false
		}
		i++
	}
	return i, true
}
