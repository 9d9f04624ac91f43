package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// hostileJSONStrings are strings encoding/json escapes, or must not:
// control bytes, quotes and backslashes, invalid and truncated UTF-8,
// U+2028 and U+2029, HTML's <, > and &, DEL, long hex numbers.
var hostileJSONStrings = []string{
	"", "libc.so.6", "0x00007fff12345678", "0x" + strings.Repeat("f", 64),
	"\x00\x01\x07\x08\x09\x0a\x0b\x0c\x0d\x1b[31m\x1f", "a\"b\\c/d", "<script>&amp;</script>",
	"\x7f", "\xff\xfe", "\xe2\x80", "\xe2\x80\xa8 \xe2\x80\xa9 \xe2\x80\xaa", "\u2028\u2029",
	"caf\u00e9 \U0001f600 \ufffd", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf",
	"x\r\nFORGED LOG LINE", "\x1b]0;title\x07", strings.Repeat("\x01é\xff", 100),
}

// encodeLikeStream is what jsonStream's json.Encoder writes for v at depth.
func encodeLikeStream(t testing.TB, v any, pretty bool, depth int) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent(strings.Repeat("  ", depth), "  ")
	}
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// checkEntryJSON compares the hand-written encoding of v with the
// Encoder's, compact and pretty, at the list depth and another.
func checkEntryJSON(t testing.TB, v any) {
	t.Helper()
	for _, pretty := range []bool{false, true} {
		for _, depth := range []int{2, 1, 0} {
			got, ok := appendEntryJSON([]byte("prefix"), v, pretty, depth)
			want := append([]byte("prefix"), encodeLikeStream(t, v, pretty, depth)...)
			if !ok || !bytes.Equal(got, want) {
				t.Fatalf("%T pretty=%v depth %d: ok %v\n got %q\nwant %q", v, pretty, depth, ok, got, want)
			}
		}
	}
}

func moduleWith(s string, i int) JSONModule {
	p := func(k int) *string {
		if (i>>k)&1 == 0 {
			return nil
		}
		return &s
	}
	return JSONModule{
		BaseAddr: s, CertSubject: p(0), CodeID: p(1), CorruptSymbols: i&1 == 0,
		DebugFile: p(2), DebugID: p(3), EndAddr: s + "e", Filename: "f" + s,
		LoadedSymbols: i&2 != 0, MissingSymbols: i&4 != 0, SymbolURL: p(4), Version: p(5),
	}
}

func unloadedWith(s string, i int) JSONUnloadedModule {
	u := JSONUnloadedModule{BaseAddr: s, CodeID: "c" + s, EndAddr: s, Filename: s + "f"}
	if i&1 != 0 {
		u.CertSubject = &s
	}
	return u
}

// TestModuleJSONMatchesEncoder: the module and unloaded-module objects
// written by hand are json.Encoder's bytes for every hostile string in
// every field, every pointer nil or not, as values and as pointers.
func TestModuleJSONMatchesEncoder(t *testing.T) {
	for _, s := range hostileJSONStrings {
		for i := range 64 {
			m, u := moduleWith(s, i), unloadedWith(s, i)
			checkEntryJSON(t, m)
			checkEntryJSON(t, &m)
			checkEntryJSON(t, u)
			checkEntryJSON(t, &u)
		}
	}
	if _, ok := appendEntryJSON(nil, JSONThread{}, false, 2); ok {
		t.Error("a thread was taken for a module")
	}
}

// FuzzModuleJSON compares the hand-written encoding with json.Encoder's
// for any string.
func FuzzModuleJSON(f *testing.F) {
	for i, s := range hostileJSONStrings {
		f.Add(s, i)
	}
	f.Fuzz(func(t *testing.T, s string, i int) {
		checkEntryJSON(t, moduleWith(s, i&63))
		checkEntryJSON(t, unloadedWith(s, i&1))
	})
}

// TestHexMatchesSprintf: the builder's hexadecimal addresses, written
// without fmt, are fmt's zero-padded ones at every pointer width.
func TestHexMatchesSprintf(t *testing.T) {
	for _, width := range []int{0, 8, 16, 17} {
		b := jsonBuilder{hexWidth: width}
		for _, v := range []uint64{0, 1, 0xabc, 0xffffffff, 0x100000000, 0x7fff12345678, ^uint64(0)} {
			if got, want := b.hex(v), fmt.Sprintf("0x%0*x", width, v); got != want {
				t.Errorf("width %d: hex(%#x) = %q, want %q", width, v, got, want)
			}
		}
	}
}
