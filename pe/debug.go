package pe

import (
	"fmt"
	"strings"
)

// Debug directory entry types (IMAGE_DEBUG_TYPE_*).
const DebugTypeCodeView = 2

// maxDebugEntries bounds the debug directory; images have a handful.
const maxDebugEntries = 64

// maxPDBName bounds the PDB path of a CodeView record (MAX_PATH is 260;
// allow long UNC and build paths).
const maxPDBName = 4096

// CodeView is the image's CodeView record: the PDB the linker wrote and
// the identity a matching PDB carries.
type CodeView struct {
	Signature string   // "RSDS" (PDB 7.0) or "NB10" (PDB 2.0)
	GUID      [16]byte // RSDS: the PDB's GUID, as stored (Data1-3 little-endian)
	Sig32     uint32   // NB10: the PDB's signature
	Age       uint32
	PDBName   string // as the linker wrote it, often a full build path
	Record    []byte // the record's bytes, as a minidump's CodeView record holds them
}

// DebugID is Breakpad's debug identifier of the PDB: the GUID's fields in
// upper-case hex, then the age in lower-case hex (for NB10, the 32-bit
// signature then the age), as minidump modules and .sym MODULE lines
// name it.
func (c *CodeView) DebugID() string {
	if c.Signature == "NB10" {
		return fmt.Sprintf("%08X%x", c.Sig32, c.Age)
	}
	g := c.GUID[:]
	return fmt.Sprintf("%08X%04X%04X%X%x", le.Uint32(g), le.Uint16(g[4:]), le.Uint16(g[6:]), g[8:16], c.Age)
}

// DebugFile is the PDB's base name (Breakpad's debug_file).
func (c *CodeView) DebugFile() string {
	name := c.PDBName
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// CodeID is Breakpad's code identifier of the image: TimeDateStamp in
// upper-case hex (8 digits) then SizeOfImage in lower-case hex, the key of
// a Microsoft symbol store's image path (name.exe/<code id>/name.exe).
func (f *File) CodeID() string {
	return fmt.Sprintf("%08X%x", f.TimeDateStamp, f.SizeOfImage)
}

// CodeView returns the image's first CodeView record, nil without error
// when the image has none.
func (f *File) CodeView() (*CodeView, error) {
	d := f.Dir(DirDebug)
	if d.RVA == 0 || d.Size == 0 {
		return nil, nil
	}
	n := int(d.Size / 28)
	if n > maxDebugEntries {
		n = maxDebugEntries
	}
	dir, err := f.BytesAtRVA("debug directory", d.RVA, n*28)
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		e := dir[i*28:]
		if le.Uint32(e[12:]) != DebugTypeCodeView {
			continue
		}
		size, rva, off := le.Uint32(e[16:]), le.Uint32(e[20:]), le.Uint32(e[24:])
		if size > 24+maxPDBName {
			return nil, rvaErr("CodeView record", rva, "%d bytes", size)
		}
		var rec []byte
		if off != 0 {
			rec, err = f.readAt("CodeView record", int64(off), int(size))
		} else {
			rec, err = f.BytesAtRVA("CodeView record", rva, int(size))
		}
		if err != nil {
			return nil, err
		}
		return ParseCodeView(rec, int64(off))
	}
	return nil, nil
}

// ParseCodeView decodes a CodeView record (RSDS or NB10) found at file
// offset off (for errors), as a debug directory or a minidump module
// holds it.
func ParseCodeView(rec []byte, off int64) (*CodeView, error) {
	if len(rec) < 4 {
		return nil, offErr("CodeView record", off, "%d bytes", len(rec))
	}
	c := &CodeView{Signature: string(rec[:4]), Record: rec}
	var name []byte
	switch c.Signature {
	case "RSDS":
		if len(rec) < 24 {
			return nil, offErr("CodeView record", off, "RSDS record of %d bytes, less than 24", len(rec))
		}
		copy(c.GUID[:], rec[4:20])
		c.Age = le.Uint32(rec[20:])
		name = rec[24:]
	case "NB10":
		if len(rec) < 16 {
			return nil, offErr("CodeView record", off, "NB10 record of %d bytes, less than 16", len(rec))
		}
		c.Sig32, c.Age = le.Uint32(rec[8:]), le.Uint32(rec[12:])
		name = rec[16:]
	default:
		return nil, offErr("CodeView record", off, "unknown signature %q", rec[:4])
	}
	for i, b := range name {
		if b == 0 {
			name = name[:i]
			break
		}
	}
	c.PDBName = string(name)
	return c, nil
}
