package symfile

import "math"

// The helpers below reproduce the field syntax Breakpad's text resolver
// accepts (strtok/strtoull based), so that a line is malformed for us exactly
// when it is malformed for Breakpad.

// isSep reports the token separators of Breakpad's Tokenize (" \r\n").
func isSep(c byte) bool { return c == ' ' || c == '\r' || c == '\n' }

// isCSpace is C's isspace, which strtoul skips before a number.
func isCSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// tokenize splits line like Breakpad's Tokenize(line, " \r\n", max): up to
// max-1 separator-delimited tokens and then the rest of the line as the last
// token. It reports whether exactly max tokens were found.
func tokenize(line []byte, max int, out [][]byte) ([][]byte, bool) {
	out = out[:0]
	i := 0
	for len(out) < max-1 {
		for i < len(line) && isSep(line[i]) {
			i++
		}
		if i >= len(line) {
			return out, false
		}
		j := i
		for j < len(line) && !isSep(line[j]) {
			j++
		}
		out = append(out, line[i:j])
		i = j
		if i < len(line) {
			i++ // the separator that ended the token
		}
	}
	for i < len(line) && (line[i] == '\r' || line[i] == '\n') {
		i++
	}
	if i >= len(line) {
		return out, false
	}
	return append(out, line[i:]), true
}

// strtou parses like C's strtoull(s, &end, base) for base 10 or 16 and
// returns the value, the index of end, and whether it overflowed.
func strtou(s []byte, base uint64) (v uint64, end int, overflow bool) {
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
	// v*base+d overflows exactly when v > (MaxUint64-d)/base, that is when
	// v > cutoff, or v == cutoff and d > cutlim (MaxUint64 = cutoff*base +
	// cutlim): one division per call at most, none for the bases used,
	// rather than one per digit (a 64-bit DIV, 4% of a first run's CPU).
	var cutoff, cutlim uint64
	switch base {
	case 16:
		cutoff, cutlim = math.MaxUint64/16, math.MaxUint64%16
	case 10:
		cutoff, cutlim = math.MaxUint64/10, math.MaxUint64%10
	case 0, 1: // no digit, or only 0s: never overflows
		cutoff, cutlim = math.MaxUint64, math.MaxUint64
	default:
		cutoff, cutlim = math.MaxUint64/base, math.MaxUint64%base
	}
	start := i
	for i < len(s) {
		d := uint64(hexVal(s[i]))
		if d >= base {
			break
		}
		if v > cutoff || v == cutoff && d > cutlim {
			overflow = true
		}
		v = v*base + d
		i++
	}
	if i == start {
		return 0, 0, false // no conversion: end is the start of s
	}
	if overflow {
		return math.MaxUint64, i, true
	}
	if neg {
		v = -v
	}
	return v, i, false
}

// strtol parses like C's strtol (64-bit long) and clamps on overflow.
func strtol(s []byte, base uint64) (v int64, end int) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	u, e, overflow := strtou(s[i:], base)
	if e == 0 {
		return 0, 0
	}
	end = i + e
	switch {
	case overflow || (!neg && u > math.MaxInt64):
		if neg {
			return math.MinInt64, end
		}
		return math.MaxInt64, end
	case neg && u > 1<<63:
		return math.MinInt64, end
	case neg:
		return -int64(u), end
	}
	return int64(u), end
}

// hexVal returns the value of a hex digit, or 255.
func hexVal(c byte) byte { return hexPlus1[c] - 1 }

// hexPlus1 holds digit value + 1, so that the zero entries mean "not a digit".
var hexPlus1 = [256]byte{
	'0': 1, '1': 2, '2': 3, '3': 4, '4': 5, '5': 6, '6': 7, '7': 8, '8': 9, '9': 10,
	'a': 11, 'b': 12, 'c': 13, 'd': 14, 'e': 15, 'f': 16,
	'A': 11, 'B': 12, 'C': 13, 'D': 14, 'E': 15, 'F': 16,
}

// validAfter is Breakpad's IsValidAfterNumber: the number must be followed
// by the end of the token or by a separator.
func validAfter(tok []byte, end int) bool { return end >= len(tok) || isSep(tok[end]) }

// hexField parses a hex address or size as Breakpad's strtoull checks do.
func hexField(tok []byte) (uint64, bool) {
	v, end, overflow := strtou(tok, 16)
	if !validAfter(tok, end) || overflow || v == math.MaxUint64 {
		return 0, false
	}
	return v, true
}

// longField parses a C long in base 10 or 16, rejecting LONG_MAX and values below min.
func longField(tok []byte, base uint64, min int64) (int64, bool) {
	v, end := strtol(tok, base)
	if !validAfter(tok, end) || v == math.MaxInt64 || v < min {
		return 0, false
	}
	return v, true
}

// looseHex is strtoul(s, NULL, 16) without checks, as Breakpad parses
// STACK CFI and STACK WIN fields.
func looseHex(tok []byte) uint64 {
	v, _, _ := strtou(tok, 16)
	return v
}

type funcRecord struct {
	multiple  bool
	addr      uint64
	size      uint64
	paramSize int64
	name      []byte
}

// parseFunc parses the fields after "FUNC ".
func parseFunc(rest []byte) (r funcRecord, ok bool) {
	var buf [5][]byte
	t, ok := tokenizeOptional(rest, 5, buf[:0])
	if !ok {
		return r, false
	}
	i := 0
	if string(t[0]) == "m" {
		r.multiple = true
		i = 1
	}
	if r.addr, ok = hexField(t[i]); !ok {
		return r, false
	}
	if r.size, ok = hexField(t[i+1]); !ok {
		return r, false
	}
	if r.paramSize, ok = longField(t[i+2], 16, 0); !ok {
		return r, false
	}
	r.name = t[i+3]
	return r, true
}

type publicRecord struct {
	multiple  bool
	addr      uint64
	paramSize int64
	name      []byte
}

// parsePublic parses the fields after "PUBLIC ".
func parsePublic(rest []byte) (r publicRecord, ok bool) {
	var buf [4][]byte
	t, ok := tokenizeOptional(rest, 4, buf[:0])
	if !ok {
		return r, false
	}
	i := 0
	if string(t[0]) == "m" {
		r.multiple = true
		i = 1
	}
	if r.addr, ok = hexField(t[i]); !ok {
		return r, false
	}
	if r.paramSize, ok = longField(t[i+1], 16, 0); !ok {
		return r, false
	}
	r.name = t[i+2]
	return r, true
}

// tokenizeOptional is Breakpad's TokenizeWithOptionalField with the "m" flag.
func tokenizeOptional(line []byte, max int, out [][]byte) ([][]byte, bool) {
	t, ok := tokenize(line, max-1, out)
	if !ok {
		return t, false
	}
	if string(t[0]) == "m" {
		var buf [2][]byte
		last, ok := tokenize(t[len(t)-1], 2, buf[:0])
		if !ok {
			return t, false
		}
		t = append(t[:len(t)-1], last[0], last[1])
	}
	return t, true
}

type lineRecord struct {
	addr, size uint64
	line       int64
	file       int64
}

// parseLine parses a source line record "addr size line file".
func parseLine(line []byte) (r lineRecord, ok bool) {
	// Fast path for the usual shape: hex hex dec dec, single spaces.
	if r, ok := parseLineFast(line); ok {
		return r, true
	}
	var buf [4][]byte
	t, ok := tokenize(line, 4, buf[:0])
	if !ok {
		return r, false
	}
	if r.addr, ok = hexField(t[0]); !ok {
		return r, false
	}
	if r.size, ok = hexField(t[1]); !ok {
		return r, false
	}
	if r.line, ok = longField(t[2], 10, math.MinInt64); !ok {
		return r, false
	}
	if r.file, ok = longField(t[3], 10, 0); !ok {
		return r, false
	}
	if r.line < 0 {
		return r, false
	}
	return r, true
}

// parseLineFast accepts only the canonical form; anything else falls back to
// the exact parser, so it never changes what is accepted.
func parseLineFast(s []byte) (r lineRecord, ok bool) {
	i := 0
	var n int
	if r.addr, n = fastHex(s); n == 0 || n > 15 || n >= len(s) || s[n] != ' ' {
		return r, false
	}
	i = n + 1
	if r.size, n = fastHex(s[i:]); n == 0 || n > 15 || i+n >= len(s) || s[i+n] != ' ' {
		return r, false
	}
	i += n + 1
	var l uint64
	if l, n = fastDec(s[i:]); n == 0 || n > 18 || i+n >= len(s) || s[i+n] != ' ' {
		return r, false
	}
	r.line = int64(l)
	i += n + 1
	if l, n = fastDec(s[i:]); n == 0 || n > 18 || i+n != len(s) {
		return r, false
	}
	r.file = int64(l)
	return r, true
}

func fastHex(s []byte) (v uint64, n int) {
	for n < len(s) && n < 16 {
		d := hexVal(s[n])
		if d > 15 {
			break
		}
		v = v<<4 | uint64(d)
		n++
	}
	return v, n
}

func fastDec(s []byte) (v uint64, n int) {
	for n < len(s) && n < 19 {
		c := s[n]
		if c < '0' || c > '9' {
			break
		}
		v = v*10 + uint64(c-'0')
		n++
	}
	return v, n
}

type inlineRecord struct {
	hasCallFile bool
	depth       int64
	callLine    int64
	callFile    int64
	origin      int64
	ranges      [][2]uint64
}

// parseInline parses the fields after "INLINE ".
func parseInline(rest []byte) (r inlineRecord, ok bool) {
	var buf [16][]byte
	t := splitAll(rest, buf[:0], 512)
	r.hasCallFile = len(t)%2 == 0
	if len(t) < 5 {
		return r, false
	}
	i := 0
	if r.depth, ok = longField(t[i], 10, 0); !ok {
		return r, false
	}
	i++
	if r.callLine, ok = longField(t[i], 10, 0); !ok {
		return r, false
	}
	i++
	if r.hasCallFile {
		if r.callFile, ok = longField(t[i], 10, -1); !ok {
			return r, false
		}
		i++
	}
	if r.origin, ok = longField(t[i], 10, 0); !ok {
		return r, false
	}
	i++
	for i+1 < len(t) {
		a, ok1 := hexField(t[i])
		s, ok2 := hexField(t[i+1])
		if !ok1 || !ok2 {
			return r, false
		}
		r.ranges = append(r.ranges, [2]uint64{a, s})
		i += 2
	}
	return r, true
}

// splitAll splits on separators into at most max tokens, the last holding the rest.
func splitAll(line []byte, out [][]byte, max int) [][]byte {
	i := 0
	for {
		for i < len(line) && isSep(line[i]) {
			i++
		}
		if i >= len(line) {
			return out
		}
		if len(out) == max-1 {
			return append(out, line[i:])
		}
		j := i
		for j < len(line) && !isSep(line[j]) {
			j++
		}
		out = append(out, line[i:j])
		i = j
	}
}

// parseFile parses the fields after "FILE ".
func parseFileRecord(rest []byte) (id int64, name []byte, ok bool) {
	var buf [2][]byte
	t, ok := tokenize(rest, 2, buf[:0])
	if !ok {
		return 0, nil, false
	}
	id, ok = longField(t[0], 10, 0)
	if !ok {
		return 0, nil, false
	}
	return id, t[1], true
}

// parseInlineOrigin parses the fields after "INLINE_ORIGIN ", in both the
// old form (id file_id name) and the current one (id name).
func parseInlineOrigin(rest []byte) (id int64, name []byte, ok bool) {
	var buf [2][]byte
	t, ok := tokenize(rest, 2, buf[:0])
	if !ok {
		return 0, nil, false
	}
	if id, ok = longField(t[0], 10, 0); !ok {
		return 0, nil, false
	}
	remaining := t[1]
	hasFileID := true
	for i := 0; i < len(remaining) && remaining[i] != ' ' && hasFileID; i++ {
		if remaining[i] == '-' && i == 0 {
			continue
		}
		hasFileID = remaining[i] >= '0' && remaining[i] <= '9'
	}
	if hasFileID {
		t2, ok := tokenize(remaining, 2, buf[:0])
		if !ok {
			return 0, nil, false
		}
		if _, ok = longField(t2[0], 10, -1); !ok {
			return 0, nil, false
		}
		return id, t2[1], true
	}
	return id, remaining, true
}

// parseStackWin parses the fields after "STACK WIN ".
func parseStackWin(rest []byte) (w StackWin, ok bool) {
	var buf [11][]byte
	t, ok := tokenize(rest, 11, buf[:0])
	if !ok {
		return w, false
	}
	typ, _ := strtol(t[0], 16)
	if typ < 0 || typ > 4 {
		return w, false
	}
	w.Type = int(typ)
	w.RVA = looseHex(t[1])
	w.CodeSize = looseHex(t[2])
	w.PrologSize = uint32(looseHex(t[3]))
	w.EpilogSize = uint32(looseHex(t[4]))
	w.ParameterSize = uint32(looseHex(t[5]))
	w.SavedRegisterSize = uint32(looseHex(t[6]))
	w.LocalSize = uint32(looseHex(t[7]))
	w.MaxStackSize = uint32(looseHex(t[8]))
	w.HasProgramString = uint32(looseHex(t[9])) != 0
	if w.HasProgramString {
		w.ProgramString = string(t[10])
	} else {
		w.AllocatesBasePointer = uint32(looseHex(t[10])) != 0
	}
	return w, true
}
