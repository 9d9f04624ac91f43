// Package demangle turns mangled symbol names (Itanium C++, Rust legacy and
// Rust v0) into readable ones for stack traces. C++ names go to
// github.com/ianlancetaylor/demangle; Rust names are read here. It adds the
// rules a stack walker needs: the extra leading underscore of Mach-O
// symbols, a bound on the work spent on one name, and "keep the name as it
// is" whenever demangling fails.
//
// Rust names print as libiberty prints them without DMGL_VERBOSE (gdb's
// form; c++filt's less the hash segment of legacy names, the crates'
// disambiguators and the constants' types of v0 names), checked against
// GNU c++filt over every Rust symbol of rustc builds
// (testdata/rust-names.tsv.gz, scripts/gen-testdata/rust-names.sh) and over
// names one edit away from them. Legacy names (legacy.go): the wrapped
// demangler took the `_` after a length for v0's separator
// (`__rust_begin_short_backtrace` came out with one underscore). v0 names
// (v0.go, RFC 2603): backrefs, generics, const generics, closures and
// shims, function pointers with bound lifetimes, dyn traits and Punycode
// identifiers; nesting is bounded as libiberty bounds it (1024), and so
// are the steps and the output, which backrefs could make exponential.
// A name libiberty refuses is kept as it is, as c++filt keeps it.
//
// MSVC (msvc.go) undecorates Microsoft C++ function names (`?f@@YAXH@Z`)
// as Breakpad's Windows dump_syms prints them through DbgHelp, for the
// PUBLIC records dumpsyms writes from PDBs; Name does not apply it.
//
// The processor applies it to function names from symbol files (PUBLIC and
// FUNC records) unless the user passes --no-demangle. No Breakpad expected
// output in the reference corpus contains a mangled name, so demangling by
// default keeps Breakpad-format conformance.
package demangle
