package summary

import (
	"bytes"
	"testing"
)

// FuzzReadMerge: a hostile summary file never panics Read, Merge or
// WriteTable.
func FuzzReadMerge(f *testing.F) {
	var buf bytes.Buffer
	b := NewBuilder(2)
	for _, r := range results(30) {
		b.Add(r)
	}
	if err := Write(&buf, b.Summary()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"format":1,"groups":[{"signature":"x","count":-5,"stacks":[{"stack_id":"a","count":1}]}],"stacks":{"a":[]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		m, err := Merge(3, s, s)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteTable(&out, m, 5); err != nil {
			t.Fatal(err)
		}
	})
}
