package summary

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

// shardJSON is the JSON summary of results[from:to] of results(200).
func shardJSON(t *testing.T, from, to int) []byte {
	t.Helper()
	b := NewBuilder(3)
	for _, r := range results(200)[from:to] {
		b.Add(r)
	}
	var buf bytes.Buffer
	if err := Write(&buf, b.Summary()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Read and Merge refuse corrupt shards, each with an error that says what
// is wrong and, from Merge, which part (issue 26.17).
func TestMergeRefusesCorruptShards(t *testing.T) {
	good := shardJSON(t, 0, 100)
	other := shardJSON(t, 100, 200)
	if _, err := Read(bytes.NewReader(good)); err != nil {
		t.Fatalf("a good shard: %v", err)
	}
	edit := func(old, new string) []byte {
		if !bytes.Contains(good, []byte(old)) {
			t.Fatalf("the shard has no %q", old)
		}
		return bytes.Replace(good, []byte(old), []byte(new), 1)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)/2], "unexpected EOF"},
		{"concatenated", append(append([]byte{}, good...), other...), "more data after"},
		{"negative inputs", edit(`"inputs": `, `"inputs": -`), "out of 0..2^53"},
		{"inputs overflowing int64", edit(`"inputs": `, `"inputs": 99999999999999999999`), "inputs"},
		{"inputs past 2^53", edit(`"inputs": 100,`, `"inputs": 9007199254740993,`), "out of 0..2^53"},
		{"statuses not adding up", edit(`"ok": `, `"ok": 1`), "add up"},
		{"negative group count", edit(`"count": `, `"count": -`), "out of 0..2^53"},
		{"frames replaced", edit(`"function": "f`, `"function": "evil`), "are those of stack"},
	} {
		_, err := Read(bytes.NewReader(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Read error %v, want one with %q", tc.name, err, tc.want)
		}
	}

	a, err := Read(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(bytes.NewReader(other))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(3, a, b); err != nil {
		t.Fatalf("two shards: %v", err)
	}
	_, err = Merge(3, a, b, a)
	var pe *PartError
	if !errors.As(err, &pe) || pe.Part != 2 || !errors.Is(err, errSameInput) {
		t.Errorf("the same shard twice: %v, want a PartError of part 2 (index) naming a repeated input", err)
	}
	// A part built in memory (not read) is checked too.
	a.Inputs = -1
	if _, err := Merge(3, b, a); !errors.As(err, &pe) || pe.Part != 1 {
		t.Errorf("negative inputs in memory: %v, want a PartError of part 1", err)
	}
}

// Counts whose sum would pass 2^53 are refused, not wrapped.
func TestMergeCountOverflow(t *testing.T) {
	var limit int64 = maxCount
	if limit > math.MaxInt {
		t.Skip("a 32-bit int cannot hold 2^53: addCount's math.MaxInt check is the bound there")
	}
	big := func(path string) *Summary {
		return &Summary{Format: FormatVersion, Inputs: int(limit), Statuses: map[string]int{"invalid": int(limit)},
			Failures: []Failure{{Path: path, Status: "invalid"}}}
	}
	if _, err := Merge(3, big("/a"), big("/b")); err == nil || !strings.Contains(err.Error(), "passes 2^53") {
		t.Errorf("Merge of two 2^53 counts: %v", err)
	}
}

// A path that is not UTF-8 is written with its bytes in base64 beside
// the lossy JSON string, read back exactly, and kept through a merge
// (issue 26.13).
func TestRawPathsRoundTrip(t *testing.T) {
	bad, bad2 := "/dumps/\xff\xfe.dmp", "/dumps/\xff\xfd.dmp"
	b := NewBuilder(3)
	b.Add(&triage.Result{Path: bad, Status: triage.StatusInvalid, Error: "x"})
	b.Add(&triage.Result{Path: bad2, Status: triage.StatusOK, Signature: "s",
		Frames: []triage.Frame{{Module: "m", Offset: "0x1", Trust: "context"}}})
	b.Add(&triage.Result{Path: "/dumps/ok.dmp", Status: triage.StatusOK, Signature: "s",
		Frames: []triage.Frame{{Module: "m", Offset: "0x1", Trust: "context"}}})
	var buf bytes.Buffer
	if err := Write(&buf, b.Summary()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"path_base64": "L2R1bXBzL//+LmRtcA=="`) || !strings.Contains(buf.String(), `"examples_base64": [`) {
		t.Errorf("no base64 paths in:\n%s", buf.String())
	}
	s, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	merged, err := Merge(3, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []*Summary{s, merged} {
		if got.Failures[0].Path != bad || !slices.Equal(got.Groups[0].Examples, []string{"/dumps/ok.dmp", bad2}) {
			t.Errorf("paths read back: %q, %q", got.Failures[0].Path, got.Groups[0].Examples)
		}
	}
}

// The table on stderr escapes signatures and skip reasons (issue 26.12).
func TestWriteTableEscapes(t *testing.T) {
	b := NewBuilder(3)
	b.Add(&triage.Result{Path: "/d/a.dmp", Status: triage.StatusOK, Signature: "evil\x1b]0;t\x07\nforged line",
		Frames: []triage.Frame{{Module: "m", Offset: "0x1", Trust: "context"}}})
	b.AddSkipped("not a dump", 2)
	var buf bytes.Buffer
	if err := WriteTable(&buf, b.Summary(), 10); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	if !strings.Contains(got, `evil\x1b]0;t\x07\x0aforged line`) || strings.ContainsAny(got, "\x1b\x07") ||
		!strings.Contains(got, "; skipped: 2 not a dump\n") {
		t.Errorf("table:\n%q", got)
	}
}
