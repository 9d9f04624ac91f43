package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/report"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
)

// encodeWhole is the JSON report as encoding/json writes the whole
// document: the oracle of the streamed writer.
func encodeWhole(t *testing.T, r *report.JSONReport, pretty bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestStreamedJSONMatchesEncoder checks, on every dump in testdata walked
// with its symbols, that WriteJSON and WriteStateJSON, which write the
// report piecewise, write the bytes json.Encoder writes for the whole
// document, compact and pretty.
func TestStreamedJSONMatchesEncoder(t *testing.T) {
	dumps, _ := filepath.Glob("../testdata/dumps/*.dmp")
	if len(dumps) == 0 {
		t.Fatal("no dumps in ../testdata/dumps")
	}
	supplier := symcompress.NewDirSupplier("../testdata/symbols")
	for _, path := range dumps {
		f, err := minidump.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := processor.Process(f, supplier, processor.Options{})
		f.Close()
		opts := report.JSONOptions{CertSubjects: map[string]string{"libc.so.6": "Hostile <&> \x1b[31m"}}
		for _, pretty := range []bool{false, true} {
			want := encodeWhole(t, report.BuildJSON(st, opts), pretty)
			var built, streamed bytes.Buffer
			if err := report.WriteJSON(&built, report.BuildJSON(st, opts), pretty); err != nil {
				t.Fatal(err)
			}
			if err := report.WriteStateJSON(&streamed, st, opts, pretty); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(built.Bytes(), want) {
				t.Errorf("%s pretty=%v: WriteJSON differs from json.Encoder:\n%s", path, pretty, firstDiff(built.Bytes(), want))
			}
			if !bytes.Equal(streamed.Bytes(), want) {
				t.Errorf("%s pretty=%v: WriteStateJSON differs from json.Encoder:\n%s", path, pretty, firstDiff(streamed.Bytes(), want))
			}
		}
	}
	// A dump that could not be read at all, and one with no lists.
	for _, st := range []*processor.ProcessState{processor.Unreadable(os.ErrNotExist), {}} {
		for _, pretty := range []bool{false, true} {
			var got bytes.Buffer
			if err := report.WriteStateJSON(&got, st, report.JSONOptions{}, pretty); err != nil {
				t.Fatal(err)
			}
			if want := encodeWhole(t, report.BuildJSON(st, report.JSONOptions{}), pretty); !bytes.Equal(got.Bytes(), want) {
				t.Errorf("status %q pretty=%v:\n%s", st.Status, pretty, firstDiff(got.Bytes(), want))
			}
		}
	}
}

// firstDiff shows where got and want part.
func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-80)
	return "got:  " + string(got[lo:min(len(got), i+80)]) + "\nwant: " + string(want[lo:min(len(want), i+80)])
}
