package triage

import (
	"encoding/json"
	"testing"
)

// jsonStrings are strings that take every path of appendJSONString.
var jsonStrings = []string{
	"", "plain", `q"uote\back`, "ctl\x00\x01\x1f\x7f", "\n\r\t\b\f", "<a href=x>&amp;</a>",
	"\u2028\u2029", "héllo wörld €𝄞", "bad\xffutf8\xc3", "\xed\xa0\x80 surrogate", "trailing\xe2\x82",
}

// TestAppendJSONMatchesMarshal: AppendJSON gives json.Marshal's bytes (the
// oracle) for results with and without each optional field.
func TestAppendJSONMatchesMarshal(t *testing.T) {
	zero := 0
	seven := 7
	results := []Result{
		{},
		{Path: "/d/a.dmp", Status: StatusOK, Frames: []Frame{}},
		{Path: "/d/a.dmp", PathBase64: "L2Q=", Status: StatusPartial, Error: "thread 1: <cut> & \"more\"",
			OS: "Linux", CPU: "amd64", Product: "app", ProductVersion: "1.2", Crashed: true,
			CrashReason: "SIGSEGV /SEGV_MAPERR", CrashAddress: "0x0", CrashingThread: &seven,
			Frames: []Frame{{Offset: "0x1", Trust: "context"},
				{Module: "libc.so.6", Function: "f<int>", File: "a.c", Line: 12, Offset: "0x2", Trust: "cfi"},
				{Function: "g", Line: -3, Offset: "0x3", Trust: "scan"}},
			Modules:        []Module{{Name: "libc.so.6"}, {Name: "m", Version: "2", DebugID: "ABC0"}},
			MissingSymbols: []string{"libx.so 0000", "liby.so 1111"},
			Signature:      "f<int>", StackID: "abcd", Milliseconds: 1234},
		{Path: "x", Status: StatusTimeout, CrashingThread: &zero, Frames: []Frame{}, Modules: []Module{}, MissingSymbols: []string{}, Milliseconds: -1},
	}
	for _, s := range jsonStrings {
		results = append(results, Result{Path: s, Status: s, Error: s, Frames: []Frame{{Module: s, Function: s, File: s, Offset: s, Trust: s}},
			Modules: []Module{{Name: s, Version: s, DebugID: s}}, MissingSymbols: []string{s}, Signature: s})
	}
	for i := range results {
		checkAppendJSON(t, &results[i])
	}
}

func checkAppendJSON(t *testing.T, r *Result) {
	t.Helper()
	want, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.AppendJSON([]byte("prefix")); string(got) != "prefix"+string(want) {
		t.Errorf("AppendJSON:\n%s\njson.Marshal:\n%s", got[len("prefix"):], want)
	}
}

// FuzzAppendJSON: any strings and numbers give json.Marshal's bytes.
func FuzzAppendJSON(f *testing.F) {
	for _, s := range jsonStrings {
		f.Add(s, s, 0, int64(0), false)
	}
	f.Fuzz(func(t *testing.T, a, b string, line int, ms int64, crashed bool) {
		r := Result{Path: a, Status: b, Error: a, Crashed: crashed, CrashingThread: &line, Milliseconds: ms,
			Frames:         []Frame{{Module: b, Function: a, Line: line, Offset: a, Trust: b}, {Offset: b, Trust: a}},
			Modules:        []Module{{Name: a, DebugID: b}},
			MissingSymbols: []string{b}, Signature: a, StackID: b}
		checkAppendJSON(t, &r)
	})
}
