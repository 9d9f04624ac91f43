package pdb

// NumStreams is the number of streams in the directory.
func (f *File) NumStreams() int { return len(f.sizes) }

// Globals reads the symbol record stream's data symbols (S_GDATA32,
// S_LDATA32) and procedure references (S_PROCREF, S_LPROCREF).
func (f *File) Globals() ([]Global, error) {
	var out []Global
	err := f.eachGlobalRecord(func(stream int, rec record) error {
		r := newReader(stream, rec.data, rec.off+4)
		var g Global
		switch rec.kind {
		case sGData32, sLData32:
			r.u32() // type
			g = Global{Kind: rec.kind, Offset: r.u32(), Section: r.u16()}
		case sProcRef, sLProcRef:
			r.u32() // checksum
			g = Global{Kind: rec.kind, Offset: r.u32(), Module: r.u16()}
		default:
			return nil
		}
		g.Name = r.cstring()
		if r.err != nil {
			return r.err
		}
		out = append(out, g)
		return nil
	})
	return out, err
}

// Len is the number of records.
func (t *TypeStream) Len() int { return len(t.offs) }
