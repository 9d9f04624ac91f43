// Package demangle turns mangled symbol names (Itanium C++, Rust legacy and
// Rust v0) into readable ones for stack traces. It wraps
// github.com/ianlancetaylor/demangle and adds the rules a stack walker needs:
// the extra leading underscore of Mach-O symbols, a bound on the work spent
// on one name, and "keep the name as it is" whenever demangling fails.
//
// The processor applies it to function names from symbol files (PUBLIC and
// FUNC records) unless the user passes --no-demangle. No Breakpad expected
// output in the reference corpus contains a mangled name, so demangling by
// default keeps Breakpad-format conformance.
package demangle
