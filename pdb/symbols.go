package pdb

import "fmt"

// Symbol record kinds this package reads (CodeView SYM_ENUM_e).
const (
	sEnd           = 0x0006
	sBPRel32       = 0x110b
	sRegRel32      = 0x1111
	sFrameProc     = 0x1012
	sThunk32       = 0x1102
	sBlock32       = 0x1103
	sWith32        = 0x1104
	sLData32       = 0x110c
	sGData32       = 0x110d
	sPub32         = 0x110e
	sLProc32       = 0x110f
	sGProc32       = 0x1110
	sProcRef       = 0x1125
	sLProcRef      = 0x1127
	sSepCode       = 0x1132
	sLProc32ID     = 0x1146
	sGProc32ID     = 0x1147
	sInlineSite    = 0x114d
	sInlineSiteEnd = 0x114e
	sProcIDEnd     = 0x114f
	sInlineSite2   = 0x115d
	sLProc32DPC    = 0x1155
	sLProc32DPCID  = 0x1156
)

// record is one CodeView symbol record: its kind, its data after the kind
// and the offset of its length field in the stream.
type record struct {
	kind uint16
	data []byte
	off  int64
}

// eachRecord calls fn for every record of b (records are a 16-bit length,
// which counts the kind and data, then a 16-bit kind). base is b[0]'s
// offset in the stream, for errors.
func eachRecord(stream int, b []byte, base int64, fn func(record) error) error {
	r := newReader(stream, b, base)
	for r.left() >= 4 {
		off := r.base + int64(r.off)
		n := int(r.u16())
		if n < 2 || n > r.left() {
			return errAt(stream, off, "symbol record of length %d, %d bytes left", n, r.left())
		}
		data := r.bytes(n, "symbol record")
		if r.err != nil {
			return r.err
		}
		kind := uint16(data[0]) | uint16(data[1])<<8
		if err := fn(record{kind: kind, data: data[2:], off: off}); err != nil {
			return err
		}
	}
	return nil
}

// Public is an S_PUB32 record: a linker-visible name, usually mangled.
type Public struct {
	Name     string
	Section  uint16
	Offset   uint32
	Code     bool // cvpsfCode: the address is code
	Function bool // cvpsfFunction
}

// Global is a record of the global symbol stream (data, procedure
// references): Kind is its CodeView kind.
type Global struct {
	Kind    uint16
	Name    string
	Section uint16
	Offset  uint32
	Module  uint16 // for procedure references: the module (from 1)
}

// Publics reads every S_PUB32 record of the symbol record stream.
func (f *File) Publics() ([]Public, error) {
	var out []Public
	err := f.eachGlobalRecord(func(stream int, rec record) error {
		if rec.kind != sPub32 {
			return nil
		}
		r := newReader(stream, rec.data, rec.off+4)
		flags := r.u32()
		p := Public{Offset: r.u32(), Section: r.u16(), Code: flags&1 != 0, Function: flags&2 != 0}
		p.Name = r.cstring()
		if r.err != nil {
			return r.err
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

func (f *File) eachGlobalRecord(fn func(int, record) error) error {
	d, err := f.DBI()
	if err != nil {
		return err
	}
	s := int(d.SymRecordStream)
	if _, ok := f.StreamSize(s); !ok || d.SymRecordStream == NoStream {
		return nil
	}
	b, err := f.Stream(s)
	if err != nil {
		return fmt.Errorf("symbol records: %w", err)
	}
	return eachRecord(s, b, 0, func(rec record) error { return fn(s, rec) })
}
