package demangle

import (
	"math/bits"
	"strings"
)

// rustLegacy demangles a Rust legacy name (`_ZN` + length-prefixed
// identifiers + `17h<16 hex>E`, optionally followed by a `.suffix` such as
// `.llvm.123`) as libiberty's rust-demangle.c prints it without
// DMGL_VERBOSE (gdb's backtraces; c++filt is verbose and adds the hash
// segment `::h…`): the hash segment is left out, `..` becomes `::`, the
// `$…$` escapes are decoded, an unknown escape prints the rest of its
// identifier verbatim, and a leading `_` before an escape is dropped.
//
// Unlike the Itanium demangler we wrap, it takes no `_` after a length as a
// separator: `28__rust_begin_short_backtrace` is `__rust_begin_short_…`.
// It reports false for anything that is not a legacy Rust name by
// libiberty's test (the characters, the final hash of at least five
// distinct hex digits), so that the caller tries it as C++.
func rustLegacy(name string) (string, bool) {
	if !strings.HasPrefix(name, "_ZN") {
		return "", false
	}
	body, ok := legacyBody(name[3:])
	if !ok {
		return "", false
	}
	idents, ok := legacyIdents(body)
	if !ok || len(idents) < 2 || !isLegacyHash(idents[len(idents)-1]) {
		return "", false
	}
	var sb strings.Builder
	for i, id := range idents[:len(idents)-1] {
		if i > 0 {
			sb.WriteString("::")
		}
		writeLegacyIdent(&sb, id)
	}
	return sb.String(), true
}

// legacyBody checks the characters a legacy name may hold and returns the
// identifiers' part: up to the final `E`, a `.suffix` after it ignored.
func legacyBody(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
			c == '$' || c == '.' || c == ':' || c == '@' {
			continue
		}
		return "", false
	}
	// The name ends with E, or with E followed by a suffix starting with '.'.
	end := len(s)
	dotSuffix := true
	for end > 0 && !(dotSuffix && s[end-1] == 'E') {
		dotSuffix = s[end-1] == '.'
		end--
	}
	if end == 0 {
		return "", false
	}
	body := s[:end-1]
	if len(body) <= 19 || !strings.HasPrefix(body[len(body)-19:], "17h") {
		return "", false
	}
	return body, true
}

// legacyIdents splits decimal-length-prefixed identifiers.
func legacyIdents(s string) ([]string, bool) {
	var out []string
	for len(s) > 0 {
		if s[0] < '1' || s[0] > '9' {
			return nil, false
		}
		n := 0
		for len(s) > 0 && s[0] >= '0' && s[0] <= '9' {
			n = n*10 + int(s[0]-'0')
			if n > maxInput {
				return nil, false
			}
			s = s[1:]
		}
		if n > len(s) {
			return nil, false
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out, true
}

func isLegacyHash(id string) bool {
	if len(id) != 17 || id[0] != 'h' {
		return false
	}
	var seen uint16
	for i := 1; i < len(id); i++ {
		d, ok := lowerHex(id[i])
		if !ok {
			return false
		}
		seen |= 1 << d
	}
	return bits.OnesCount16(seen) >= 5
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func writeLegacyIdent(sb *strings.Builder, id string) {
	if strings.HasPrefix(id, "_$") {
		id = id[1:]
	}
	for len(id) > 0 {
		switch id[0] {
		case '$':
			c, n := legacyEscape(id)
			if n == 0 {
				sb.WriteString(id)
				return
			}
			sb.WriteByte(c)
			id = id[n:]
		case '.':
			if strings.HasPrefix(id, "..") {
				sb.WriteString("::")
				id = id[2:]
			} else {
				sb.WriteByte('.')
				id = id[1:]
			}
		default:
			n := strings.IndexAny(id, "$.")
			if n < 0 {
				n = len(id)
			}
			sb.WriteString(id[:n])
			id = id[n:]
		}
	}
}

// legacyEscapeChar is the character of a named `$…$` escape, 0 when the
// name is not one. A switch, not a map built at every start (issue 29).
func legacyEscapeChar(code string) byte {
	switch code {
	case "C":
		return ','
	case "SP":
		return '@'
	case "BP":
		return '*'
	case "RF":
		return '&'
	case "LT":
		return '<'
	case "GT":
		return '>'
	case "LP":
		return '('
	case "RP":
		return ')'
	}
	return 0
}

// legacyEscape decodes the `$…$` escape at the start of s: the character
// and the escape's length, or 0 when it is not one libiberty knows (`$uXX$`
// only for printable ASCII).
func legacyEscape(s string) (byte, int) {
	end := strings.IndexByte(s[1:], '$')
	if end < 1 {
		return 0, 0
	}
	code := s[1 : 1+end]
	if c := legacyEscapeChar(code); c != 0 {
		return c, end + 2
	}
	if len(code) != 3 || code[0] != 'u' {
		return 0, 0
	}
	hi, ok1 := lowerHex(code[1])
	lo, ok2 := lowerHex(code[2])
	if !ok1 || !ok2 || hi > 7 || hi<<4|lo < 0x20 {
		return 0, 0
	}
	return hi<<4 | lo, end + 2
}
