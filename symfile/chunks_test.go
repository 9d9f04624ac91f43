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
				"disk":     {bytes.NewReader(data), func(lo, hi int) {}},
				"short":    {bytes.NewReader(data[:len(data)/2]), func(lo, hi int) {}},
				"reserved": {bytes.NewReader(data), func(lo, hi int) {}},
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
	return reflect.DeepEqual(f.funcs, ref.funcs) && reflect.DeepEqual(f.pubs, ref.pubs) &&
		reflect.DeepEqual(f.cfi, ref.cfi) && reflect.DeepEqual(f.win, ref.win) &&
		reflect.DeepEqual(f.winType, ref.winType) && reflect.DeepEqual(f.info, ref.info) &&
		reflect.DeepEqual(f.files, ref.files) && reflect.DeepEqual(f.origins, ref.origins) &&
		reflect.DeepEqual(f.errs, ref.errs) && f.module == ref.module && f.codeID == ref.codeID &&
		f.limit == ref.limit
}
