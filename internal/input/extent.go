package input

import (
	"bufio"
	"encoding/binary"
	"io"
	"os"
)

// ZeroRunEnd is the run of zero bytes that ends the copy of a minidump once
// it lies past everything the dump's stream directory, memory lists and
// thread list name: such bytes cannot be read by a walk, so a compression
// bomb behind a valid header (zeros to the 4 GiB bound: 15 to 20 s of
// decompression) stops after it. A real dump's bytes past those extents
// are strings and records, never megabytes of zeros.
const ZeroRunEnd = 16 << 20

// Minidump stream types whose entries name file ranges outside the stream.
const (
	streamThreadList   = 3
	streamMemoryList   = 5
	streamMemory64List = 9
)

// dumpExtent follows the copy of a minidump: how far its directory and
// memory lists reach, and the run of zeros copied past that.
type dumpExtent struct {
	f      *os.File // the copy, read back for the directory and lists
	need   int64    // bytes to copy before the next step of finding end
	step   int      // 0: header, 1: directory, 2: lists, 3: end known
	dir    int64    // the directory's offset and entry count
	count  int64
	lists  [3][2]int64 // the first thread, memory and memory64 list: rva, size
	end    int64       // furthest byte named, once step is 3
	zeros  int64       // zero bytes ending the copy, past end
	broken bool        // the copy could not be read back: copy to the bound
}

// copyDump copies r (a minidump whose first n bytes are in w already) to w
// in buf-sized pieces, up to limit+1 bytes in all, stopping early after
// ZeroRunEnd zero bytes past the dump's named extent.
func copyDump(w *os.File, r io.Reader, buf []byte, n, limit int64) (int64, error) {
	x := &dumpExtent{f: w, need: 32}
	x.advance(n)
	for n <= limit {
		k, err := r.Read(buf[:min(int64(len(buf)), limit+1-n)])
		if k > 0 {
			if werr := writeAll(w, buf[:k]); werr != nil {
				return n, werr
			}
			x.saw(buf[:k], n)
			n += int64(k)
			x.advance(n)
			if x.zeros >= ZeroRunEnd {
				return n, nil
			}
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// saw counts the zeros of p, copied at offset at, that lie past the extent.
func (x *dumpExtent) saw(p []byte, at int64) {
	if x.step < 3 {
		return
	}
	if skip := x.end - at; skip > 0 {
		if skip >= int64(len(p)) {
			return
		}
		p = p[skip:]
	}
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] != 0 {
			x.zeros = int64(len(p) - 1 - i)
			return
		}
	}
	x.zeros += int64(len(p))
}

// advance takes the next steps of finding the extent that the n bytes
// copied allow: the header gives the directory, the directory the streams,
// the streams the lists' ranges.
func (x *dumpExtent) advance(n int64) {
	for !x.broken && x.step < 3 && n >= x.need {
		var err error
		switch x.step {
		case 0:
			var hdr [32]byte
			_, err = x.f.ReadAt(hdr[:], 0)
			x.count = int64(binary.LittleEndian.Uint32(hdr[8:]))
			x.dir = int64(binary.LittleEndian.Uint32(hdr[12:]))
			x.need = max(32, x.dir+12*x.count)
		case 1:
			x.need, err = x.readDirectory()
		case 2:
			x.end = x.need
			for i, l := range x.lists {
				x.end = max(x.end, listExtent(x.f, listTypes[i], l[0], l[1]))
			}
		}
		x.broken = err != nil
		x.step++
	}
}

// listTypes are the streams of dumpExtent.lists, in order.
var listTypes = [3]int64{streamThreadList, streamMemoryList, streamMemory64List}

// readDirectory returns the end of the furthest stream, noting the lists.
func (x *dumpExtent) readDirectory() (int64, error) {
	r := bufio.NewReaderSize(io.NewSectionReader(x.f, x.dir, 12*x.count), 64<<10)
	end := x.need
	var e [12]byte
	for range x.count {
		if _, err := io.ReadFull(r, e[:]); err != nil {
			return 0, err
		}
		typ := int64(binary.LittleEndian.Uint32(e[0:]))
		size, rva := int64(binary.LittleEndian.Uint32(e[4:])), int64(binary.LittleEndian.Uint32(e[8:]))
		end = max(end, rva+size)
		for i, t := range listTypes {
			if typ == t && x.lists[i] == [2]int64{} {
				x.lists[i] = [2]int64{rva, size}
			}
		}
	}
	return end, nil
}

// listExtent returns the furthest byte named by the entries of a thread
// list, memory list or memory64 list stream at rva.
func listExtent(f *os.File, typ, rva, size int64) int64 {
	r := bufio.NewReaderSize(io.NewSectionReader(f, rva, size), 64<<10)
	var end int64
	var e [48]byte
	read := func(p []byte) bool {
		_, err := io.ReadFull(r, p)
		return err == nil
	}
	switch typ {
	case streamMemory64List: // count u64, base rva u64, then {start u64, size u64}
		if !read(e[:16]) {
			return 0
		}
		end = int64(binary.LittleEndian.Uint64(e[8:]) & (1<<40 - 1))
		for read(e[:16]) {
			end += int64(binary.LittleEndian.Uint64(e[8:]) & (1<<40 - 1))
		}
	case streamMemoryList: // count u32, then {start u64, size u32, rva u32}
		if !read(e[:4]) {
			return 0
		}
		for read(e[:16]) {
			end = max(end, int64(binary.LittleEndian.Uint32(e[12:]))+int64(binary.LittleEndian.Uint32(e[8:])))
		}
	case streamThreadList: // count u32, then 48-byte threads: stack at 24, context at 40
		if !read(e[:4]) {
			return 0
		}
		for read(e[:48]) {
			stack := int64(binary.LittleEndian.Uint32(e[36:])) + int64(binary.LittleEndian.Uint32(e[32:]))
			ctx := int64(binary.LittleEndian.Uint32(e[44:])) + int64(binary.LittleEndian.Uint32(e[40:]))
			end = max(end, stack, ctx)
		}
	}
	return end
}
