package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

var samples = []string{
	"", "plain", `q"uote\back`, "ctl\x00\x01\x1f\x7f", "\n\r\t\b\f", "<a href=x>&amp;</a>",
	"\u2028\u2029", "héllo wörld €𝄞", "bad\xffutf8\xc3", "\xed\xa0\x80 surrogate", "trailing\xe2\x82",
}

// encodingJSON is the oracle: encoding/json's bytes for s, HTML-escaped or not.
func encodingJSON(t *testing.T, s string, escapeHTML bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func check(t *testing.T, s string) {
	for _, html := range []bool{false, true} {
		if got, want := string(Append([]byte("x"), s, html)), "x"+encodingJSON(t, s, html); got != want {
			t.Errorf("Append(%q, %v) = %s, want %s", s, html, got, want)
		}
	}
}

func TestAppendMatchesEncodingJSON(t *testing.T) {
	for _, s := range samples {
		check(t, s)
	}
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	check(t, string(all))
}

func FuzzAppend(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { check(t, s) })
}
