// Package hostile generates the inputs of docs/limits.md: small dumps,
// microdumps and symbol files built to cost as much time or memory as the
// code allows (many modules in the worst order, threads sharing one deep
// frame chain, decompression bombs, ...). Tests use them at a modest size
// to check that each bound holds; scripts/limits writes them at full size
// for the measurements in docs/limits.md.
//
// It also holds the robustness campaign's tools (scripts/limits/campaign):
// MutateDump and MutateSymbols make its truncated and mutated inputs,
// DumpForSymbols a dump for a symbol file no dump names, and SymbolServer
// a symbol server on loopback that answers in one of ten hostile ways.
package hostile
