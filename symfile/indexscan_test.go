package symfile

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"
)

// cfiDeltaByLine is how the index pass judged a STACK CFI record before
// scanCFIDelta: the line cut at its '\n' and its trailing '\r's, then
// isStackCFI, the INIT prefix and validCFIDelta on the rest. It is the
// oracle of the tests below: isDelta says the line took that path, valid
// what validCFIDelta said, next the start of the next line.
func cfiDeltaByLine(data []byte, pos, end int) (next int, valid, isDelta bool) {
	line, _, next := cutLine(data, pos, end)
	if !isStackCFI(line) || bytes.HasPrefix(line, pSTACKCFIINIT) {
		return next, false, false
	}
	return next, validCFIDelta(line[len(pSTACKCFI):]), true
}

// cutLine is the line at data[pos:end] as the index pass's general path
// reads it: cut at its '\n' and its trailing '\r's; lineEnd is where its
// '\n' is (or end), next the start of the next line.
func cutLine(data []byte, pos, end int) (line []byte, lineEnd, next int) {
	next, lineEnd = end, end
	if nl := bytes.IndexByte(data[pos:end], '\n'); nl >= 0 {
		lineEnd, next = pos+nl, pos+nl+1
	}
	line = data[pos:lineEnd]
	for len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line, lineEnd, next
}

// checkCFIDelta compares scanCFIDelta with the oracle at every line start
// of data. scanCFIDelta may decline a line (ok false: the general path
// then judges it) only when fewer than len("STACK CFI INIT ") bytes are
// left, and must never take one the oracle does not call a delta.
func checkCFIDelta(t *testing.T, data []byte) {
	t.Helper()
	end := len(data)
	for pos := 0; pos < end; {
		next, valid, isDelta := cfiDeltaByLine(data, pos, end)
		at, gotValid, ok := scanCFIDelta(data, pos, end)
		switch {
		case ok && !isDelta:
			t.Fatalf("%q at %d: taken as a STACK CFI record; the line path does not", data, pos)
		case ok && (gotValid != valid || lineAfter(data, at, end) != next):
			t.Fatalf("%q at %d: valid %v, next line at %d; the line path says %v, %d",
				data, pos, gotValid, lineAfter(data, at, end), valid, next)
		case !ok && isDelta && end-pos >= len(pSTACKCFIINIT):
			t.Fatalf("%q at %d: a STACK CFI record declined", data, pos)
		}
		pos = next
	}
}

var cfiDeltaCases = []string{
	"STACK CFI 11 .cfa: $rsp 16 +\n",
	"STACK CFI 11 .cfa: $rsp 16 +",
	"STACK CFI 11 .cfa: $rsp 16 +\r\n",
	"STACK CFI 11\n",
	"STACK CFI 11 \n",
	"STACK CFI 11 \r\r\n",
	"STACK CFI 11 \rx\n",
	"STACK CFI 11\r\rx\n",
	"STACK CFI \n\n\n\n\n\n",
	"STACK CFI   11    x\n",
	"STACK CFI\r11 x\n",
	"STACK CFI \r11 x\n",
	"STACK CFI \t11 x\n",
	"STACK CFI 11\tx\n",
	"STACK CFI IN\nIT 10 20 x\n",
	"STACK CFI INIT 10 20 .cfa: $rsp 8 +\n",
	"STACK CFI INIT\n0123456789\n",
	"STACK CFI INITx 1 2\n",
	"STACK CFI INIT  10 20 x\n",
	"STACK CFI x y\nSTACK CFI 1\nSTACK CFI 2 \nSTACK CFI 3 z",
	"STACK CFI\n",
	"STACK CF 11 x\n",
	"STACK  CFI 11 x\n",
	"STACK WIN 4 10 20 1 0 0 0 0 0 1 $eip 4 + ^ =\n",
	"STACK CFI 11 \xff\n",
	"STACK CFI \xa0 x\n",
	"10 4 1 0\nSTACK CFI 11 x\n\nSTACK CFI 12\r\n",
	"\r\n\r\nSTACK CFI 11 x\r\r",
	// STACK CFI INIT records, in the usual form and not (scanCFIInit).
	"STACK CFI INIT 10 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n",
	"STACK CFI INIT 10 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^\r\n",
	"STACK CFI INIT 10 20 x",
	"STACK CFI INIT 10 20 \n",
	"STACK CFI INIT 10 20 \r\n",
	"STACK CFI INIT 10 20 \rx\n",
	"STACK CFI INIT 10 20\n",
	"STACK CFI INIT 10 20  x\n",
	"STACK CFI INIT 10  20 x\n",
	"STACK CFI INIT  10 20 x\n",
	"STACK CFI INIT 0x10 20 x\n",
	"STACK CFI INIT 10 0 x\n",
	"STACK CFI INIT ffffffffffffffff 1 x\n",
	"STACK CFI INIT fffffffffffffff 1 x\n",
	"STACK CFI INIT 123456789abcdef0 10 x\n",
	"STACK CFI INIT 10 123456789abcdef01 x\n",
	"STACK CFI INIT ABCDEF 1aB x\n",
	"STACK CFI INIT 10\t20 x\n",
	"STACK CFI INIT 10 20\tx\n",
	"STACK CFI INIT 10 g0 x\n",
	"STACK CFI INIT\n10 20 x\n",
	"STACK CFI INIT 10\n20 x\n",
	// Tokens longer than a word, with bytes below '!' that are not
	// separators, and bytes >= 0x80 (tokenEnd's word at a time).
	"STACK CFI 0123456\t789abcdef x\n",
	"STACK CFI 0123456789abcdef\x01\x02\x1f x\n",
	"STACK CFI 01234567\xa1\xa2\xff89abcdef\xa0x\n",
	"STACK CFI 0123456789abcdef0123\r\r\n",
	"STACK CFI 0123456789abcdef0123 \r\r",
	"STACK CFI 0123456789abcdef0123\x00\x00\x00\x00\x00\x00\x00\x00\x00 x\n",
	"STACK CFI \x21\x20\x22\x21\x21\x21\x21\x21\x21\x21\x21 x\n",
}

func TestScanCFIDelta(t *testing.T) {
	for _, c := range cfiDeltaCases {
		checkCFIDelta(t, []byte(c))
		checkCFIInit(t, []byte(c))
		// Every prefix: the record cut anywhere, as at a chunk's end.
		for n := range len(c) {
			checkCFIDelta(t, []byte(c[:n]))
			checkCFIInit(t, []byte(c[:n]))
		}
	}
}

// usualCFIInit is the form scanCFIInit must take: "STACK CFI INIT", the
// address and size in plain hex of at most 15 digits, single spaces, and
// a byte of the rules.
var usualCFIInit = regexp.MustCompile(`^STACK CFI INIT [0-9a-fA-F]{1,15} [0-9a-fA-F]{1,15} [^ \r\n]`)

// checkCFIInit compares scanCFIInit with the line path (indexStack on the
// line cut at its '\n' and trailing '\r's) at every line start of data:
// a record it takes must be the line path's, with no error, and the next
// line must start where the line path says.
func checkCFIInit(t *testing.T, data []byte) {
	t.Helper()
	end := len(data)
	for pos := 0; pos < end; {
		line, lineEnd, next := cutLine(data, pos, end)
		got, want := new(chunkScratch).start(nil), new(chunkScratch).start(nil)
		at, ok := got.scanCFIInit(data, pos, end, uint64(pos)+7)
		switch {
		case ok:
			if !want.indexStack(line, 1, uint64(pos)+7) || len(want.errs) > 0 || !slices.Equal(got.cfi, want.cfi) ||
				lineAfter(data, at, end) != next {
				t.Fatalf("%q at %d: %v, next line at %d; the line path says %v (errors %v), %d",
					data, pos, got.cfi, lineAfter(data, at, end), want.cfi, want.errs, next)
			}
		case usualCFIInit.Match(data[pos:lineEnd]):
			t.Fatalf("%q at %d: a STACK CFI INIT record of the usual form declined", data, pos)
		}
		pos = next
	}
}

// TestCFIDeltaErrors: the index pass reports the same malformed STACK CFI
// records, at the same lines and offsets, whichever path judged them.
func TestCFIDeltaErrors(t *testing.T) {
	data := []byte("STACK CFI INIT 10 20 .cfa: $rsp 8 +\nSTACK CFI 11\nSTACK CFI 12 x\r\nSTACK CFI 13 \r\r\nSTACK CFI 14 y\nSTACK CFI 15")
	c := indexChunkInto(data, 0, len(data), new(chunkScratch).start(nil), 0)
	want := []lineError{
		{2, 36, "malformed STACK CFI record"},
		{4, 65, "malformed STACK CFI record"},
		{6, 96, "malformed STACK CFI record"},
	}
	if len(c.errs) != len(want) {
		t.Fatalf("errors %v, want %v", c.errs, want)
	}
	for i, e := range c.errs {
		if e != want[i] {
			t.Errorf("error %d: %v, want %v", i, e, want[i])
		}
	}
	if c.lines != 6 || len(c.cfi) != 1 {
		t.Errorf("%d lines, %d CFI ranges; want 6, 1", c.lines, len(c.cfi))
	}
}

// FuzzScanCFIDelta: scanCFIDelta and scanCFIInit against the line path,
// at every line start.
func FuzzScanCFIDelta(f *testing.F) {
	for _, c := range cfiDeltaCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCFIDelta(t, data)
		checkCFIInit(t, data)
	})
}

var recordFastCases = []string{
	"10 0 name", "10 0  name", "10 0 \rname", "10 0 \r", "10 0 ", "10 0", "10 0\rname", "10  0 name",
	" 10 0 name", "m 10 0 name", "0x10 0 name", "10 0x0 name", "+10 0 name", "10 -1 name", "10\t0 name",
	"fffffffffffffff 0 n", "ffffffffffffffff 0 n", "10 fffffffffffffff n", "10 7fffffffffffffff n",
	"ABCdef 1F n", "g 0 n", "10 g n", "", " ", "10 ", "1 2 3 name", "1 2 3 \n", "1 2 3 4",
	"1 2  3 name", "0 0 0 x", "10 20 0 f\xff", "123456789abcdef 123456789abcdef 0 n",
}

// checkRecordFast compares hexFieldsFast with parsePublic and parseFunc on
// rest: what it takes, they take with the same fields; the usual form it
// must take.
func checkRecordFast(t *testing.T, rest []byte) {
	t.Helper()
	var pub [2]uint64
	if hexFieldsFast(rest, pub[:]) {
		r, ok := parsePublic(rest)
		if !ok || r.addr != pub[0] || uint64(r.paramSize) != pub[1] {
			t.Fatalf("PUBLIC %q: %x; parsePublic says %v %+v", rest, pub, ok, r)
		}
	} else if usualPublic.Match(rest) {
		t.Fatalf("PUBLIC %q: the usual form declined", rest)
	}
	var fn [3]uint64
	if hexFieldsFast(rest, fn[:]) {
		r, ok := parseFunc(rest)
		if !ok || r.multiple || r.addr != fn[0] || r.size != fn[1] || uint64(r.paramSize) != fn[2] {
			t.Fatalf("FUNC %q: %x; parseFunc says %v %+v", rest, fn, ok, r)
		}
	} else if usualFunc.Match(rest) {
		t.Fatalf("FUNC %q: the usual form declined", rest)
	}
}

var (
	usualPublic = regexp.MustCompile(`^[0-9a-fA-F]{1,15} [0-9a-fA-F]{1,15} [^\r\n]`)
	usualFunc   = regexp.MustCompile(`^[0-9a-fA-F]{1,15} [0-9a-fA-F]{1,15} [0-9a-fA-F]{1,15} [^\r\n]`)
)

func TestRecordFast(t *testing.T) {
	for _, c := range recordFastCases {
		for n := range len(c) + 1 {
			checkRecordFast(t, []byte(c[:n]))
		}
	}
}

// FuzzRecordFast: hexFieldsFast against parsePublic and parseFunc.
func FuzzRecordFast(f *testing.F) {
	for _, c := range recordFastCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, rest []byte) {
		checkRecordFast(t, rest)
	})
}

// TestSortRanges: sortRanges gives slices.SortFunc's order with cmpRange
// (the oracle), for records in file order (offsets rising, as a chunk
// has them) and not, addresses close together, spread over 64 bits, all
// equal, few, already sorted, and in runs.
func TestSortRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf []rangeEntry
	for trial := range 400 {
		n := rng.IntN(3000)
		spread := uint64(1) << rng.IntN(65) // 2^64 wraps to 0: every address equal
		base := rng.Uint64()
		in := make([]rangeEntry, n)
		off := uint64(rng.IntN(1000))
		for i := range in {
			b := base + rng.Uint64N(max(spread, 1))
			if spread == 0 {
				b = base
			}
			if trial%5 == 1 && i > 0 && rng.IntN(8) > 0 {
				b = in[i-1].base + rng.Uint64N(64) // runs
			}
			off += 1 + uint64(rng.IntN(50))
			in[i] = rangeEntry{b, b + 16, off}
		}
		if trial%7 == 3 {
			rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] }) // not in file order
		}
		if trial%11 == 5 {
			slices.SortFunc(in, cmpRange)
		}
		want := slices.Clone(in)
		slices.SortFunc(want, cmpRange)
		sortRanges(in, &buf)
		if !slices.Equal(in, want) {
			t.Fatalf("trial %d (%d records, spread %#x): not cmpRange's order", trial, n, spread)
		}
	}
}
