package machofile

import (
	"bytes"
	"debug/macho"
)

// Symbol is an nlist entry of the symbol table, its name as the string
// table holds it (debug/macho drops the leading underscore of names with
// a dot, taking them for Go's).
type Symbol struct {
	Name  string
	Type  uint8
	Sect  uint8
	Desc  uint16
	Value uint64
}

// Symbols reads the LC_SYMTAB symbol table; nil without one.
func (f *File) Symbols() ([]Symbol, error) {
	// debug/macho leaves Symtab's SymtabCmd empty: read the command.
	if st := f.Symtab; st != nil && len(st.LoadBytes) >= 24 {
		raw, bo := st.LoadBytes, f.ByteOrder
		entSize := int64(16)
		if f.Magic == macho.Magic32 {
			entSize = 12
		}
		symoff, nsyms := int64(bo.Uint32(raw[8:])), int64(bo.Uint32(raw[12:]))
		stroff, strsize := int64(bo.Uint32(raw[16:])), int64(bo.Uint32(raw[20:]))
		if symoff > f.size || nsyms > (f.size-symoff)/entSize {
			return nil, formatErr(symoff, "LC_SYMTAB: %d symbols past the file's end (%#x)", nsyms, f.size)
		}
		if stroff > f.size || strsize > f.size-stroff {
			return nil, formatErr(stroff, "LC_SYMTAB: string table of %#x bytes past the file's end (%#x)", strsize, f.size)
		}
		syms := make([]byte, nsyms*entSize)
		strs := make([]byte, strsize)
		if _, err := f.r.ReadAt(syms, symoff); err != nil {
			return nil, formatErr(symoff, "LC_SYMTAB: %v", err)
		}
		if _, err := f.r.ReadAt(strs, stroff); err != nil {
			return nil, formatErr(stroff, "LC_SYMTAB strings: %v", err)
		}
		out := make([]Symbol, 0, nsyms)
		for i := int64(0); i < nsyms; i++ {
			e := syms[i*entSize:]
			s := Symbol{Type: e[4], Sect: e[5], Desc: f.ByteOrder.Uint16(e[6:])}
			if entSize == 16 {
				s.Value = f.ByteOrder.Uint64(e[8:])
			} else {
				s.Value = uint64(f.ByteOrder.Uint32(e[8:]))
			}
			if strx := int64(f.ByteOrder.Uint32(e)); strx < strsize {
				name := strs[strx:]
				if end := bytes.IndexByte(name, 0); end >= 0 {
					name = name[:end]
				}
				s.Name = string(name)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, nil
}
