package symfile

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// stackCFIWord is "STACK CF" as a little-endian word.
var stackCFIWord = binary.LittleEndian.Uint64([]byte("STACK CF"))

// isStackCFI reports whether line starts with "STACK CFI ", comparing a
// word and two bytes: STACK CFI lines are the most common after line records.
func isStackCFI(line []byte) bool {
	return len(line) >= len(pSTACKCFI) && binary.LittleEndian.Uint64(line) == stackCFIWord &&
		line[8] == 'I' && line[9] == ' '
}

// scanCFIDelta checks a STACK CFI record that is not a STACK CFI INIT one
// at data[pos:end] (pos a line start) as validCFIDelta checks its rest,
// without first finding the line's end: ok is false for any other line.
// valid says whether Breakpad accepts it (an address token and something
// after it); at is where the check stopped, at or before the line's '\n'.
//
// The line validCFIDelta reads has its trailing '\r's cut; here the bytes
// run on to the '\n' (or end), so a separator is ' ' or '\r', and the
// record is valid when a byte other than these and '\n' follows the
// token's separators: such a byte is inside the cut line, and a line
// with none has nothing after its token there either.
func scanCFIDelta(data []byte, pos, end int) (at int, valid, ok bool) {
	d := data[:end]
	if end-pos < len(pSTACKCFIINIT) || !isStackCFI(d[pos:]) ||
		string(d[pos+len(pSTACKCFI):pos+len(pSTACKCFIINIT)]) == "INIT " {
		return 0, false, false
	}
	i := pos + len(pSTACKCFI)
	for i < len(d) && (d[i] == ' ' || d[i] == '\r') {
		i++
	}
	i = tokenEnd(d, i)
	for i < len(d) && (d[i] == ' ' || d[i] == '\r') {
		i++
	}
	return i, i < len(d) && d[i] != '\n', true
}

// scanCFIInit indexes a STACK CFI INIT record at data[pos:end] (pos a
// line start, off its offset in the file) in the usual form, "address
// size rules" with single spaces and plain hex, as stackCFIInit's fast
// path does, without first finding the line's end. ok is false for any
// other line, which the general path then reads; else at is where it
// stopped, before the line's '\n'.
//
// The bytes it reads are hex digits, the two spaces and a byte that is
// no separator, so none is the '\n' or a trailing '\r' that the general
// path cuts: its fast path, on the cut line, reads the same bytes.
func (c *chunkIndex) scanCFIInit(data []byte, pos, end int, off uint64) (at int, ok bool) {
	d := data[:end]
	if end-pos <= len(pSTACKCFIINIT) || !isStackCFI(d[pos:]) ||
		string(d[pos+len(pSTACKCFI):pos+len(pSTACKCFIINIT)]) != "INIT " {
		return 0, false
	}
	rest := d[pos+len(pSTACKCFIINIT):]
	a, n := fastHex(rest)
	if n == 0 || n >= len(rest) || rest[n] != ' ' {
		return 0, false
	}
	s, m := fastHex(rest[n+1:])
	k := n + 1 + m // the space after the size
	if m == 0 || k+1 >= len(rest) || rest[k] != ' ' || isSep(rest[k+1]) {
		return 0, false
	}
	if high, ok := highOf(a, s); ok {
		c.cfi = append(c.cfi, rangeEntry{a, high, off})
	}
	return pos + len(pSTACKCFIINIT) + k + 1, true
}

// tokenEnd returns the first i from i on with d[i] a separator (' ',
// '\r' or '\n'), or len(d). It looks for bytes below '!' a word at a
// time (separators are among them), then checks the one it found.
func tokenEnd(d []byte, i int) int {
	for i+8 <= len(d) {
		w := binary.LittleEndian.Uint64(d[i:])
		// The lowest byte of w below 0x21 sets its top bit here; a
		// borrow only marks bytes above a byte that is below.
		m := (w - 0x2121212121212121) &^ w & 0x8080808080808080
		if m == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(m) >> 3
		if isSep(d[i]) {
			return i
		}
		i++ // a tab or another control byte: part of the token
	}
	for i < len(d) && !isSep(d[i]) {
		i++
	}
	return i
}

// lineAfter returns the start of the line after the one that holds
// data[at] (at < end), or end if that line has no '\n' before end.
func lineAfter(data []byte, at, end int) int {
	if nl := bytes.IndexByte(data[at:end], '\n'); nl >= 0 {
		return at + nl + 1
	}
	return end
}

// hexFieldsFast reads the usual form of a PUBLIC or FUNC record's rest:
// len(vals) fields of 1 to 15 plain hex digits, each followed by one
// space, then the name, whose first byte is no '\r' or '\n'. It fills
// vals and reports true for that form only; anything else goes to
// parsePublic or parseFunc. There each field is a token, which hexField
// or longField (base 16, at least 0) reads whole: at most 15 digits are
// below both MaxUint64 and MaxInt64, and the name is the rest of the line
// after the space (tokenize), not empty.
func hexFieldsFast(rest []byte, vals []uint64) bool {
	i := 0
	for k := range vals {
		v, n := fastHex(rest[i:])
		if n == 0 || n > 15 || i+n >= len(rest) || rest[i+n] != ' ' {
			return false
		}
		vals[k] = v
		i += n + 1
	}
	return i < len(rest) && rest[i] != '\r' && rest[i] != '\n'
}
