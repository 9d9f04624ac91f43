// Package fuzzbudget gives fuzz targets a per-input budget of time and
// memory, so that the fuzzer reports an input that is slow or allocates
// too much (a quadratic parser, an amplification, a decompression bomb) as
// a failure, not only one that panics. The defaults are those of the
// robustness campaign in docs/limits.md.
package fuzzbudget
