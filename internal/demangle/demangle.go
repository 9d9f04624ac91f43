package demangle

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// maxInput bounds the length of a name we try to demangle. Real symbols are
// far shorter; a symbol file is untrusted input and the demangler's cost grows
// with the name.
const maxInput = 16 << 10

// maxOutputPow bounds the demangled text to 2^16 characters: substitutions
// let a short mangled name expand enormously.
const maxOutputPow = 16

// Name returns the demangled form of name, or name itself when it is not a
// mangled name or cannot be demangled.
func Name(name string) string {
	out, ok := TryName(name)
	if !ok {
		return name
	}
	return out
}

// TryName demangles name and reports whether it did.
func TryName(name string) (string, bool) {
	if len(name) > maxInput || !looksMangled(name) {
		return "", false
	}
	candidate := name
	// Mach-O prefixes every C symbol with '_', so C++ and Rust names there
	// start with "__Z" / "__R". Try the ELF spelling first: "__Z" is not a
	// valid Itanium prefix, so there is no ambiguity.
	if strings.HasPrefix(candidate, "__Z") || strings.HasPrefix(candidate, "__R") {
		candidate = candidate[1:]
	}
	if out, ok := rustLegacy(candidate); ok {
		return out, true
	}
	if strings.HasPrefix(candidate, "_R") {
		return rustV0(candidate)
	}
	out, err := demangle.ToString(candidate, demangle.MaxLength(maxOutputPow))
	if err != nil || out == "" {
		return "", false
	}
	return out, true
}

// looksMangled is a cheap prefix check that avoids calling the demangler on
// the (common) names that are already readable.
func looksMangled(name string) bool {
	s := name
	if strings.HasPrefix(s, "__") {
		s = s[1:]
	}
	if len(s) < 3 || s[0] != '_' {
		return false
	}
	switch s[1] {
	case 'Z':
		return true
	case 'R':
		// Rust v0: "_R" followed by an optional decimal version then an uppercase tag.
		c := s[2]
		return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return false
}
