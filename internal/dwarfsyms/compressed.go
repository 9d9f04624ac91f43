package dwarfsyms

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"strings"
)

// MaxDecompressed bounds the bytes one ELF file's compressed sections
// (SHF_COMPRESSED or .zdebug_) may decompress to, together: the per-file
// bound of compressed .sym files (symfile.DefaultMaxDecompressedFile).
// debug/elf decompresses a section whole, to the size its header claims,
// so a 2 MB file claiming 2 GiB would otherwise be read into memory.
const MaxDecompressed = 512 << 20

// Line rows a compressed .debug_line may give: at least minCompressedRows,
// else rowsPerCompressedByte per byte stored in the file. A real line
// program spends a byte or more per row and compresses a few times; a
// program of one repeated opcode compresses a thousandfold, letting a
// 64 KB file make tens of millions of rows.
const (
	minCompressedRows     = 1 << 20
	rowsPerCompressedByte = 16
)

// CheckCompressed returns a *FormatError when the compressed sections of
// f claim more than max bytes decompressed together. Checked before any is
// read: debug/elf reads a section to its claimed size and no further.
func CheckCompressed(f *elf.File, max int64) error {
	var total uint64
	for _, s := range f.Sections {
		size, ok := decompressedSize(s)
		if !ok {
			continue
		}
		total += min(size, 1<<62)
		if total > uint64(max) {
			return &FormatError{Section: s.Name, Msg: fmt.Sprintf(
				"compressed sections decompress to %d bytes or more, over the %d byte per-file bound", total, max)}
		}
	}
	return nil
}

// decompressedSize is the size a compressed section claims.
func decompressedSize(s *elf.Section) (uint64, bool) {
	if s.Type == elf.SHT_NOBITS {
		return 0, false
	}
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		return s.Size, true // debug/elf took it from the Chdr
	}
	if !strings.HasPrefix(s.Name, ".zdebug") {
		return 0, false
	}
	var hdr [12]byte
	if n, _ := s.ReadAt(hdr[:], 0); n != len(hdr) || string(hdr[:4]) != "ZLIB" {
		return 0, false
	}
	return binary.BigEndian.Uint64(hdr[4:]), true
}

// LineRowBound returns the line rows f's .debug_line may give: max, or
// fewer when the section is compressed (see rowsPerCompressedByte).
func LineRowBound(f *elf.File, max int) int {
	s := f.Section(".debug_line")
	if s == nil {
		s = f.Section(".zdebug_line")
	}
	if s == nil {
		return max
	}
	if _, ok := decompressedSize(s); !ok {
		return max
	}
	stored := min(s.FileSize, 1<<40)
	return min(max, minCompressedRows+rowsPerCompressedByte*int(stored))
}
