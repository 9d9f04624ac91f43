package symfile

import (
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
			f := &File{name: name, data: data}
			f.buildIndex(cs, nil)
			if !reflect.DeepEqual(f.funcs, ref.funcs) || !reflect.DeepEqual(f.pubs, ref.pubs) ||
				!reflect.DeepEqual(f.cfi, ref.cfi) || !reflect.DeepEqual(f.win, ref.win) ||
				!reflect.DeepEqual(f.files, ref.files) || !reflect.DeepEqual(f.origins, ref.origins) ||
				!reflect.DeepEqual(f.errs, ref.errs) || f.module != ref.module || f.codeID != ref.codeID {
				t.Errorf("%s: chunk size %d gives a different index than one chunk\nerrs %v\nref  %v", name, cs, f.errs, ref.errs)
				break
			}
		}
	}
}
