// Package xz reads .xz files (The .xz File Format 1.2.0): streams and
// their padding, blocks with the LZMA2 filter, the index and the footer,
// each header's CRC32 and each block's check (none, CRC32, CRC64 or
// SHA-256), over the LZMA2 decoder of github.com/ulikunitz/xz/lzma.
//
// It stands in for that module's root package, whose initialiser builds
// 32 KB of CRC-64 tables at every start of every program linking it
// (docs/performance.md, "Start-up"): here the CRC-64 table is built when a
// CRC-64 check is first met. Every count, size and flag is checked against
// the format; an error names the file offset where the input stops being
// xz. The dictionary is bounded (MaxDict), so a hostile header cannot ask
// for gigabytes.
package xz
