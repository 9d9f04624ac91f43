package symfile

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// strtouDividing is strtou as it was before its overflow check lost the
// division per digit: the oracle of the tests below.
func strtouDividing(s []byte, base uint64) (v uint64, end int, overflow bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base == 16 && i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && i+2 < len(s) && hexVal(s[i+2]) < 16 {
		i += 2
	}
	start := i
	for i < len(s) {
		d := uint64(hexVal(s[i]))
		if d >= base {
			break
		}
		if v > (math.MaxUint64-d)/base {
			overflow = true
		}
		v = v*base + d
		i++
	}
	if i == start {
		return 0, 0, false
	}
	if overflow {
		return math.MaxUint64, i, true
	}
	if neg {
		v = -v
	}
	return v, i, false
}

func checkStrtou(t *testing.T, s []byte, base uint64) {
	t.Helper()
	v, end, of := strtou(s, base)
	wv, wend, wof := strtouDividing(s, base)
	if v != wv || end != wend || of != wof {
		t.Fatalf("strtou(%q, %d) = %d, %d, %v; the dividing one says %d, %d, %v", s, base, v, end, of, wv, wend, wof)
	}
}

// TestStrtouOverflowEdges: every value around 2^64 in bases 10 and 16,
// each last digit at the bound, and the inputs strtoull's conventions
// touch (spaces, signs, 0x, no digits).
func TestStrtouOverflowEdges(t *testing.T) {
	inputs := []string{"", " ", "-", "+", "0x", "0xg", " \t-0x1f", "+9", "-0", "00000000000000000000000001",
		"ffffffffffffffff", "FFFFFFFFFFFFFFFF", "10000000000000000", "fffffffffffffff", "0fffffffffffffffff",
		"18446744073709551615", "18446744073709551616", "18446744073709551619", "18446744073709551620",
		"1844674407370955161", "184467440737095516150", "99999999999999999999", "1 2", "12ab", "0x0x1"}
	for _, base := range []uint64{10, 16} {
		for last := range 16 {
			inputs = append(inputs, "fffffffffffffff"+strconv.FormatUint(uint64(last), 16),
				"1844674407370955161"+strconv.Itoa(last%10), "-fffffffffffffff"+strconv.FormatUint(uint64(last), 16))
		}
		for _, s := range inputs {
			checkStrtou(t, []byte(s), base)
		}
	}
	for _, base := range []uint64{0, 1, 2, 8, 36} {
		for _, s := range inputs {
			checkStrtou(t, []byte(s), base)
		}
	}
}

// TestStrtouRandom compares the two on random digit strings of 1 to 24
// digits, with the signs, spaces and non-digits of real fields.
func TestStrtouRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 2))
	const alphabet = "0123456789abcdefABCDEF0123456789ffff99  +-xXg\t\n\xff"
	for range 200000 {
		b := make([]byte, 1+r.IntN(24))
		for i := range b {
			if r.IntN(8) == 0 {
				b[i] = alphabet[r.IntN(len(alphabet))]
			} else {
				b[i] = "0123456789abcdef"[r.IntN(16)]
			}
		}
		checkStrtou(t, b, 16)
		checkStrtou(t, b, 10)
	}
}

func FuzzStrtou(f *testing.F) {
	f.Add([]byte("ffffffffffffffff"), uint8(16))
	f.Add([]byte("18446744073709551616"), uint8(10))
	f.Add([]byte(" -0x1f"), uint8(16))
	f.Fuzz(func(t *testing.T, s []byte, base uint8) {
		checkStrtou(t, s, uint64(base))
	})
}

// BenchmarkParsePublic parses every PUBLIC record of
// SYMFILE_BENCH_CHUNK_FILE (e.g. 8 MiB of the stress file's PUBLIC
// records); it skips without it.
func BenchmarkParsePublic(b *testing.B) {
	data := benchChunkFile(b)
	var lines [][]byte
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), pPUBLIC); ok {
			lines = append(lines, rest)
		}
	}
	if len(lines) == 0 {
		b.Skip("no PUBLIC record in SYMFILE_BENCH_CHUNK_FILE")
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for _, l := range lines {
			if _, ok := parsePublic(l); !ok {
				b.Fatalf("%q", l)
			}
		}
	}
	b.ReportMetric(float64(len(lines)), "records")
}
