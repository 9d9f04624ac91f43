package dwarfsyms

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// compressedSection is a section of hostileELF: its zlib stream holds
// data, and its Chdr claims size bytes.
type compressedSection struct {
	name string
	data []byte
	size uint64
}

// hostileELF builds a little-endian ELF64 relocatable file whose sections
// are SHF_COMPRESSED (zlib), each claiming its size.
func hostileELF(t testing.TB, secs ...compressedSection) []byte {
	t.Helper()
	le := binary.LittleEndian
	names := []byte{0}
	var body bytes.Buffer
	type shdr struct{ name, off, size uint64 }
	var hdrs []shdr
	for _, s := range secs {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(s.data)
		zw.Close()
		off := uint64(64 + body.Len())
		chdr := make([]byte, 24)
		le.PutUint32(chdr, uint32(elf.COMPRESS_ZLIB))
		le.PutUint64(chdr[8:], s.size)
		le.PutUint64(chdr[16:], 1)
		body.Write(chdr)
		body.Write(z.Bytes())
		hdrs = append(hdrs, shdr{uint64(len(names)), off, uint64(24 + z.Len())})
		names = append(append(names, s.name...), 0)
	}
	strName := uint64(len(names))
	names = append(names, ".shstrtab\x00"...)
	strOff := uint64(64 + body.Len())
	body.Write(names)
	shoff := uint64(64 + body.Len())

	out := make([]byte, 64)
	copy(out, "\x7fELF\x02\x01\x01")
	le.PutUint16(out[16:], uint16(elf.ET_REL))
	le.PutUint16(out[18:], uint16(elf.EM_X86_64))
	le.PutUint32(out[20:], 1)
	le.PutUint64(out[40:], shoff)
	le.PutUint16(out[52:], 64)
	le.PutUint16(out[58:], 64)
	le.PutUint16(out[60:], uint16(len(secs)+2))
	le.PutUint16(out[62:], uint16(len(secs)+1))
	out = append(out, body.Bytes()...)
	sh := func(name, typ, flags, off, size uint64) {
		b := make([]byte, 64)
		le.PutUint32(b, uint32(name))
		le.PutUint32(b[4:], uint32(typ))
		le.PutUint64(b[8:], flags)
		le.PutUint64(b[24:], off)
		le.PutUint64(b[32:], size)
		le.PutUint64(b[48:], 1)
		out = append(out, b...)
	}
	sh(0, 0, 0, 0, 0)
	for _, h := range hdrs {
		sh(h.name, uint64(elf.SHT_PROGBITS), uint64(elf.SHF_COMPRESSED), h.off, h.size)
	}
	sh(strName, uint64(elf.SHT_STRTAB), 0, strOff, uint64(len(names)))
	return out
}

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A compressed .debug_info claiming 2 GiB (issue 26: dump_syms at 6.0 GB)
// is refused before it is decompressed.
func TestReadCompressedOverBudget(t *testing.T) {
	data := hostileELF(t, compressedSection{".debug_info", make([]byte, 1<<20), 2 << 30})
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var readErr error
	n := allocated(func() { _, readErr = Read(f, Options{}, func(*Func) bool { return true }) })
	var fe *FormatError
	if !errors.As(readErr, &fe) || fe.Section != ".debug_info" || !strings.Contains(readErr.Error(), "536870912 byte per-file bound") {
		t.Fatalf("Read = %v, want a FormatError naming .debug_info and the bound", readErr)
	}
	if n > 16<<20 {
		t.Errorf("Read allocated %d bytes, want under 16 MiB", n)
	}
}

// Sections within the bound one by one but not together are refused too.
func TestCheckCompressedTotal(t *testing.T) {
	half := uint64(MaxDecompressed/2 + 1)
	data := hostileELF(t, compressedSection{".debug_info", nil, half}, compressedSection{".debug_str", nil, half})
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckCompressed(f, MaxDecompressed); err == nil || !strings.Contains(err.Error(), ".debug_str") {
		t.Errorf("CheckCompressed = %v, want an error at .debug_str", err)
	}
	if err := CheckCompressed(f, 2*MaxDecompressed); err != nil {
		t.Errorf("CheckCompressed with room = %v", err)
	}
}

// A compressed .debug_line of 2^25 one-byte DW_LNS_copy rows (issue 26: a
// 64 KB file, 4.4 GB) may give far fewer rows than the file-wide default.
func TestLineRowBoundCompressed(t *testing.T) {
	program := bytes.Repeat([]byte{1}, 1<<25)
	data := hostileELF(t, compressedSection{".debug_line", program, uint64(len(program))})
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got := LineRowBound(f, 1<<25)
	stored := int(f.Section(".debug_line").FileSize)
	if want := minCompressedRows + rowsPerCompressedByte*stored; got != want || got > 1<<22 {
		t.Errorf("LineRowBound = %d, want %d (stored %d bytes) and under 2^22", got, want, stored)
	}
	if got := LineRowBound(f, 1000); got != 1000 {
		t.Errorf("LineRowBound(max 1000) = %d", got)
	}
}

// lineBombSections are a compile unit whose compressed line program
// emits rows one-byte special opcodes, one row each, from 0x1000 on.
func lineBombSections(rows int) []compressedSection {
	le := binary.LittleEndian
	// DW_TAG_compile_unit: DW_AT_stmt_list sec_offset, low_pc addr, high_pc data8.
	abbrev := []byte{1, 0x11, 0, 0x10, 0x17, 0x11, 0x01, 0x12, 0x07, 0, 0, 0}
	info := []byte{0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 1, 0, 0, 0, 0}
	info = le.AppendUint64(info, 0x1000)
	info = le.AppendUint64(info, uint64(rows)+1)
	le.PutUint32(info, uint32(len(info)-4))
	// DWARF 4 header: line_base -5, line_range 14, opcode_base 13, file a.c.
	hdr := []byte{1, 1, 1, 0xfb, 14, 13, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 'a', '.', 'c', 0, 0, 0, 0, 0}
	line := le.AppendUint32([]byte{0, 0, 0, 0, 4, 0}, uint32(len(hdr)))
	line = append(line, hdr...)
	line = le.AppendUint64(append(line, 0, 9, 2), 0x1000)  // DW_LNE_set_address
	line = append(line, bytes.Repeat([]byte{32}, rows)...) // address += 1, line += 0, a row
	line = append(line, 0, 1, 1)                           // DW_LNE_end_sequence
	le.PutUint32(line, uint32(len(line)-4))
	return []compressedSection{
		{".debug_abbrev", abbrev, uint64(len(abbrev))},
		{".debug_info", info, uint64(len(info))},
		{".debug_line", line, uint64(len(line))},
	}
}

// A compressed line program of 2^22 rows in a few KB (issue 26: 2^25 rows
// in 64 KB, 4.4 GB) stops at LineRowBound with an error naming
// .debug_line and the bound.
func TestReadCompressedLineBomb(t *testing.T) {
	f, err := elf.NewFile(bytes.NewReader(hostileELF(t, lineBombSections(1<<22)...)))
	if err != nil {
		t.Fatal(err)
	}
	bound := LineRowBound(f, 1<<25)
	var readErr error
	n := allocated(func() { _, readErr = Read(f, Options{}, func(*Func) bool { return true }) })
	var fe *FormatError
	if !errors.As(readErr, &fe) || fe.Section != ".debug_line" || !strings.Contains(readErr.Error(), fmt.Sprintf("more than %d line rows", bound)) {
		t.Fatalf("Read = %v, want more than %d line rows in .debug_line", readErr, bound)
	}
	if n > 256<<20 {
		t.Errorf("Read allocated %d bytes, want under 256 MiB", n)
	}
	// A short program of the same kind reads.
	f, err = elf.NewFile(bytes.NewReader(hostileELF(t, lineBombSections(1000)...)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(f, Options{}, func(*Func) bool { return true }); err != nil {
		t.Errorf("Read of 1000 rows = %v", err)
	}
}
