// Package textsafe makes strings from untrusted input (a dump's module
// and PDB names, a symbol file's FUNC and FILE names, file paths) safe to
// print on a terminal or into a log: Escape. The text outputs (human, -m,
// -b, -s, -d, --dump, batch's tables on stderr) print every such string
// through it; the JSON outputs do not need it (JSON escapes control bytes
// and keeps the exact text).
//
// The rule, one for every output: a byte that is not part of valid UTF-8
// and a control character (C0, DEL, C1, including tab, newline and
// escape) are written in Go's escape forms: \xNN for such a byte or a
// control below U+0080 (a newline is \x0a), \uNNNN above; so are the Unicode
// line and paragraph separators and the bidirectional overrides and
// isolates (U+202A-U+202E, U+2066-U+2069), which can make a line read
// other than it is. Everything else, backslashes included, is kept: a
// Windows path reads as it is, and printable text is byte for byte what
// Breakpad prints. Nothing is dropped, so a name stays recognisable; the
// escape is not meant to be reversed (the JSON report has the exact text).
package textsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape returns s with its unsafe bytes and runes escaped (see the
// package comment). Printable ASCII is returned as it is, without
// allocating.
func Escape(s string) string { return escape(s, false) }

// EscapeText is Escape for a block of text printed as lines (a dump's
// copy of /proc/cpuinfo or of the environment): line feeds and tabs are
// kept, everything else follows Escape's rule.
func EscapeText(s string) string { return escape(s, true) }

func escape(s string, block bool) string {
	i := 0
	for i < len(s) && (s[i] >= 0x20 && s[i] < 0x7f || block && (s[i] == '\n' || s[i] == '\t')) {
		i++
	}
	if i == len(s) {
		return s
	}
	if !needsEscape(s[i:], block) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for j := i; j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		switch {
		case block && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[j])
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[j : j+n])
		}
		j += n
	}
	return b.String()
}

// needsEscape reports whether s holds anything escape changes.
func needsEscape(s string, block bool) bool {
	for j := 0; j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		if block && (r == '\n' || r == '\t') {
			j += n
			continue
		}
		if (r == utf8.RuneError && n <= 1) || unsafeRune(r) {
			return true
		}
		j += n
	}
	return false
}

// unsafeRune reports whether r is a control character or a rune that
// changes how the rest of a line reads.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi overrides and isolates
		return true
	}
	return false
}
