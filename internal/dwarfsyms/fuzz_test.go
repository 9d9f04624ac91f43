package dwarfsyms

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
)

// sectionsOf reads the DWARF sections of a testdata ELF file.
func sectionsOf(tb testing.TB, path string) *Sections {
	f, err := elf.NewFile(bytes.NewReader(corpus.ReadZstd(tb, path)))
	if err != nil {
		tb.Fatal(err)
	}
	sec := func(name string) []byte {
		s := f.Section(name)
		if s == nil {
			return nil
		}
		data, err := s.Data()
		if err != nil {
			tb.Fatal(err)
		}
		return data
	}
	return &Sections{Info: sec(".debug_info"), Abbrev: sec(".debug_abbrev"), Line: sec(".debug_line"),
		Str: sec(".debug_str"), LineStr: sec(".debug_line_str"), Ranges: sec(".debug_ranges"),
		RngLists: sec(".debug_rnglists"), Addr: sec(".debug_addr"), StrOffsets: sec(".debug_str_offsets"),
		Order: f.ByteOrder}
}

// packSections frames DWARF sections for FuzzReadSections: each one a
// little-endian uint32 length and its bytes, in the order unpackSections
// reads them.
func packSections(s *Sections) []byte {
	var out []byte
	for _, b := range [][]byte{s.Info, s.Abbrev, s.Line, s.RngLists, s.Str, s.LineStr} {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
	}
	return out
}

func unpackSections(data []byte) *Sections {
	var secs [6][]byte
	for i := range secs {
		if len(data) < 4 {
			break
		}
		n := min(int(binary.LittleEndian.Uint32(data)), len(data)-4)
		secs[i], data = data[4:4+n], data[4+n:]
	}
	return &Sections{Info: secs[0], Abbrev: secs[1], Line: secs[2], RngLists: secs[3], Str: secs[4], LineStr: secs[5],
		Order: binary.LittleEndian}
}

// FuzzReadSections reads hostile .debug_info, .debug_abbrev, .debug_line,
// .debug_rnglists, .debug_str and .debug_line_str (one input, framed by
// packSections), seeded with C and C++ programs': no panic, only typed
// errors, within fuzzbudget's time and memory.
func FuzzReadSections(f *testing.F) {
	for _, p := range []string{"../../elfcfi/testdata/x86-df.zst", "../../elfcfi/testdata/arm64-df.zst"} {
		f.Add(packSections(sectionsOf(f, p)), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, inlines bool) {
		s := unpackSections(data)
		fuzzbudget.Default.Run(t, func() {
			_, err := ReadSections(s, Options{Inlines: inlines}, func(fn *Func) bool {
				if fn.Name == "" || len(fn.Ranges) == 0 {
					t.Errorf("function %+v with no name or ranges", fn)
				}
				return true
			})
			var fe *FormatError
			if err != nil && !errors.As(err, &fe) && !errors.Is(err, ErrNoDWARF) {
				t.Errorf("untyped error %T: %v", err, err)
			}
		})
	})
}
