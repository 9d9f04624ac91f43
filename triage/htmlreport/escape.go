package htmlreport

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The page's escapers. The template is a text/template (linked by the
// command line's help already) whose every output action ends in one of
// them, as html/template would choose them for the action's place in the
// page: the command then links no html/template, whose initialisers took
// 18 KB of heap and about 0.2 ms at every start of every run
// (docs/performance.md, "Start-up"). Each does what html/template's own
// escaper for that place does, byte for byte: escape_test.go renders the
// page with html/template as well and compares, and checks that no action
// of the template is left unescaped.

// escapeHTML is html/template's escaper of text, RCDATA (title) and quoted
// attribute values: the markup characters and '+' as character
// references, NUL as U+FFFD, everything else (invalid UTF-8 included) as
// it is. Values that are not strings are formatted as fmt.Sprint formats
// them first.
func escapeHTML(v any) string {
	s, ok := v.(string)
	if !ok {
		s = fmt.Sprint(v)
	}
	var b strings.Builder
	written := 0
	for i := 0; i < len(s); i++ {
		var repl string
		switch s[i] {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '&':
			repl = "&amp;"
		case '\'':
			repl = "&#39;"
		case '+':
			repl = "&#43;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		default:
			continue
		}
		b.WriteString(s[written:i])
		b.WriteString(repl)
		written = i + 1
	}
	if written == 0 {
		return s
	}
	b.WriteString(s[written:])
	return b.String()
}

// escapeURL is html/template's escaping of a whole URL in a quoted href:
// a URL with a scheme other than http, https or mailto is replaced by
// "#ZgotmplZ"; bytes outside RFC 3986's unreserved and reserved sets (and
// '%' not followed by two hex digits before the last byte) are
// percent-encoded; then the result is escaped as an attribute value.
func escapeURL(s string) string {
	if scheme, _, ok := strings.Cut(s, ":"); ok && !strings.Contains(scheme, "/") &&
		!strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") && !strings.EqualFold(scheme, "mailto") {
		return "#ZgotmplZ"
	}
	var b strings.Builder
	written := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if urlKeeps(c) || c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			continue
		}
		b.WriteString(s[written:i])
		fmt.Fprintf(&b, "%%%02x", c)
		written = i + 1
	}
	if written != 0 {
		b.WriteString(s[written:])
		s = b.String()
	}
	return escapeHTML(s)
}

// urlKeeps says whether c stays as it is in a normalised URL: RFC 3986's
// unreserved characters and its reserved ones but the single quote and
// parentheses.
func urlKeeps(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!#$&*+,/:;=?@[]", c) >= 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// escapeJSON is html/template's escaping of a value in a JSON script
// block: the value as encoding/json writes it (which escapes '<', '>',
// '&', U+2028 and U+2029), padded with spaces if it began or ended with a
// letter, digit, '_' or '$'.
func escapeJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if len(b) == 0 {
		return " null ", nil
	}
	first, _ := utf8.DecodeRune(b)
	last, _ := utf8.DecodeLastRune(b)
	if jsIdentPart(first) || jsIdentPart(last) {
		return " " + string(b) + " ", nil
	}
	return string(b), nil
}

// jsIdentPart is html/template's isJSIdentPart: the runes that would run
// into a neighbouring keyword.
func jsIdentPart(r rune) bool {
	return r == '$' || r == '_' || '0' <= r && r <= '9' || 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z'
}
