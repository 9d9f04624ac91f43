package symfile

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
)

// The parallel index pass must give the same index whatever the chunk
// boundaries: records, function blocks that span chunks, line data at a
// chunk start, and error line numbers.
func TestChunkBoundaries(t *testing.T) {
	inputs := map[string][]byte{
		"records":   []byte(recordsSym),
		"recordsCR": []byte(strings.ReplaceAll(recordsSym, "\n", "\r\n")),
		"malformed": []byte("FUNC 10 10 0 f\n10 4 1 0\nPUBLIC 20 0 p\n14 4 2 0\n14 4 2 0\nFUNC 30 10 0 g\n30 4 3 0\nINLINE 0 1 0 0 30 4\nFUNC 0 0 0 z\n40 4 1 0\nbad\n"),
	}
	for _, p := range corpusSymFiles(t) {
		if strings.HasSuffix(p, ".gz") || strings.HasSuffix(p, ".zst") {
			continue
		}
		if st, err := os.Stat(p); err == nil && st.Size() < 300<<10 {
			data, _ := os.ReadFile(p)
			inputs[p] = data
		}
	}
	for name, data := range inputs {
		ref := &File{name: name, data: data}
		ref.buildIndex(len(data)+1, nil)
		sizes := []int{1, 7, 64, 1000}
		if len(data) < 4000 {
			sizes = append(sizes, 2, 3, 5, 11, 13, 17, 23, 31)
		}
		for _, cs := range sizes {
			// In memory; read from "disk" (pread into a buffer, the
			// mapping for chunks over twice cs); and from a file that
			// reads short, as when truncated meanwhile (the mapping).
			// A File that is closed (as Open's are) holds its PUBLIC
			// records in reserved memory, not in an array sized by a
			// count of them (reservePublics).
			for src, disk := range map[string]*diskSource{
				"memory":   nil,
				"disk":     {r: bytes.NewReader(data), release: func(lo, hi int) {}},
				"short":    {r: bytes.NewReader(data[:len(data)/2]), release: func(lo, hi int) {}},
				"reserved": {r: bytes.NewReader(data), release: func(lo, hi int) {}},
			} {
				f := &File{name: name, data: data}
				if src == "reserved" {
					f.unmap = func() error { return nil }
				}
				f.buildIndex(cs, disk)
				if !sameIndex(f, ref) {
					t.Errorf("%s: chunk size %d (%s) gives a different index than one chunk\nerrs %v\nref  %v", name, cs, src, f.errs, ref.errs)
				}
				if err := f.Close(); err != nil {
					t.Errorf("%s: chunk size %d (%s): Close: %v", name, cs, src, err)
				}
			}
		}
	}
}

// sameIndex reports whether f and ref hold the same index.
func sameIndex(f, ref *File) bool {
	return reflect.DeepEqual(f.funcs.all(), ref.funcs.all()) && reflect.DeepEqual(f.pubs.all(), ref.pubs.all()) &&
		reflect.DeepEqual(f.cfi.all(), ref.cfi.all()) && reflect.DeepEqual(f.win, ref.win) &&
		reflect.DeepEqual(f.winType, ref.winType) && reflect.DeepEqual(f.info, ref.info) &&
		reflect.DeepEqual(f.files, ref.files) && reflect.DeepEqual(f.origins, ref.origins) &&
		reflect.DeepEqual(f.errs, ref.errs) && f.module == ref.module && f.codeID == ref.codeID &&
		f.limit == ref.limit
}

// A chunk read in pieces (readPieces) is indexed as when read whole,
// whatever the piece size: lines cut at a piece's end, lines longer than
// a piece, and a read that comes back short part way (the rest then
// indexed through the mapping, as indexChunks does); each byte is read once.
func TestChunkReadInPieces(t *testing.T) {
	inputs := map[string][]byte{
		"records":   []byte(recordsSym),
		"recordsCR": []byte(strings.ReplaceAll(recordsSym, "\n", "\r\n")),
		"malformed": []byte("FUNC 10 10 0 f\n10 4 1 0\nPUBLIC 20 0 p\n14 4 2 0\n14 4 2 0\nFUNC 30 10 0 g\n30 4 3 0\nINLINE 0 1 0 0 30 4\nFUNC 0 0 0 z\n40 4 1 0\nbad\n"),
		"longline":  []byte("FUNC 10 10 0 " + strings.Repeat("f", 300) + "\n10 4 1 0\n14 4 2 0\nPUBLIC 20 0 p\n"),
	}
	for _, p := range corpusSymFiles(t) {
		if st, err := os.Stat(p); err == nil && !strings.HasSuffix(p, ".gz") && !strings.HasSuffix(p, ".zst") && st.Size() < 100<<10 {
			data, _ := os.ReadFile(p)
			inputs[p] = data
		}
	}
	for name, data := range inputs {
		// The second half of the file, from a line start, as a chunk.
		lo := bytes.IndexByte(data[len(data)/2:], '\n') + len(data)/2 + 1
		for _, bounds := range [][2]int{{0, len(data)}, {lo, len(data)}} {
			want := indexChunkInto(data, bounds[0], bounds[1], new(chunkScratch).start(nil), 0)
			for _, piece := range []int{1, 2, 7, 64, 1000, 1 << 20} {
				for _, readable := range []int{len(data), (bounds[0] + bounds[1]) / 2} {
					var buf []byte
					c := new(chunkScratch).start(nil)
					r := &countingReader{r: bytes.NewReader(data[:readable])}
					p := readPieces(r, &buf, bounds[0], bounds[1], len(data), piece, c)
					if n := r.n.Load(); readable == len(data) && n != int64(bounds[1]-bounds[0]) {
						t.Errorf("%s [%d, %d) piece %d: read %d bytes", name, bounds[0], bounds[1], piece, n)
					}
					if p < bounds[0] || p > bounds[1] || (readable == len(data) && p != bounds[1]) {
						t.Fatalf("%s [%d, %d) piece %d: stopped at %d", name, bounds[0], bounds[1], piece, p)
					}
					if p > bounds[0] && p < bounds[1] && data[p-1] != '\n' {
						t.Fatalf("%s: piece %d: stopped at %d, not a line start", name, piece, p)
					}
					indexChunkInto(data, p, bounds[1], c, 0)
					if !reflect.DeepEqual(c, want) {
						t.Errorf("%s [%d, %d) piece %d, %d bytes readable: read in pieces %+v\nwhole %+v", name, bounds[0], bounds[1], piece, readable, c, want)
					}
					if piece < len(data) && cap(buf) > 2*max(piece, longestLine(data))+2 {
						t.Errorf("%s: piece %d: buffer grew to %d bytes", name, piece, cap(buf))
					}
				}
			}
		}
	}
}

// longestLine is the length of data's longest line, its newline included.
func longestLine(data []byte) int {
	n := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n') + 1
		if i == 0 {
			i = len(data)
		}
		n, data = max(n, i), data[i:]
	}
	return n
}
