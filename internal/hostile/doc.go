// Package hostile generates the inputs of docs/limits.md: small dumps,
// microdumps and symbol files built to cost as much time or memory as the
// code allows (many modules in the worst order, threads sharing one deep
// frame chain, decompression bombs, ...). Tests use them at a modest size
// to check that each bound holds; scripts/limits writes them at full size
// for the measurements in docs/limits.md.
package hostile
