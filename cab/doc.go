// Package cab extracts files from Microsoft cabinet files (MSCF), as
// symbol stores keep compressed files (name.pd_, name.dl_): folders stored
// or compressed with MSZIP or LZX (lzx.go: windows of 2^15..2^21 bytes,
// the three block types, E8 translation; one LZX frame per 32 KiB data
// block). Quantum folders are refused with ErrUnsupported
// (docs/windows.md), as are cabinets spanning several files.
//
// A cabinet is untrusted input: every count, offset and size is checked,
// the output is bounded by the caller's limit before it is produced, and
// errors are *FormatError values naming the offset in the cabinet.
package cab
