// Package demangle turns mangled symbol names (Itanium C++, Rust legacy and
// Rust v0) into readable ones for stack traces. It wraps
// github.com/ianlancetaylor/demangle and adds the rules a stack walker needs:
// the extra leading underscore of Mach-O symbols, a bound on the work spent
// on one name, and "keep the name as it is" whenever demangling fails.
//
// Rust names print as libiberty prints them without DMGL_VERBOSE (gdb's
// form; c++filt's less the hash segment of legacy names, the crates'
// disambiguators and the constants' types of v0 names), checked against
// GNU c++filt over every Rust symbol of rustc builds
// (testdata/rust-names.tsv.gz, scripts/gen-testdata/rust-names.sh).
// Legacy names are read here (legacy.go): the wrapped demangler takes the
// `_` after a length for v0's separator (`__rust_begin_short_backtrace`
// came out with one underscore). Nine v0 names of std it still cannot read
// (rust_test.go knownV0).
//
// The processor applies it to function names from symbol files (PUBLIC and
// FUNC records) unless the user passes --no-demangle. No Breakpad expected
// output in the reference corpus contains a mangled name, so demangling by
// default keeps Breakpad-format conformance.
package demangle
