package pe

import "sort"

// MaxExports bounds the export table: ordinals are 16-bit, so an image
// exports at most 65535 functions.
const MaxExports = 1 << 16

// maxExportNameBytes bounds the bytes of names and forwarders one export
// table reads (hostile names may all point at one long string).
const maxExportNameBytes = 16 << 20

// maxExportName bounds one exported name (C++ decorated names run long).
const maxExportName = 4096

// Export is one entry of the export table.
type Export struct {
	Name      string // "" for an entry exported by ordinal only
	Ordinal   uint32 // Base + index
	RVA       uint32 // 0 for a forwarder
	Forwarder string // "DLL.Name" when the entry forwards to another DLL
}

// Exports returns the image's exports sorted by RVA (forwarders last),
// nil without error when it has no export table.
func (f *File) Exports() ([]Export, error) {
	d := f.Dir(DirExport)
	if d.RVA == 0 || d.Size == 0 {
		return nil, nil
	}
	hdr, err := f.BytesAtRVA("export directory", d.RVA, 40)
	if err != nil {
		return nil, err
	}
	base := le.Uint32(hdr[16:])
	nfunc, nname := le.Uint32(hdr[20:]), le.Uint32(hdr[24:])
	if nfunc > MaxExports || nname > MaxExports {
		return nil, rvaErr("export directory", d.RVA, "%d functions and %d names, more than %d", nfunc, nname, MaxExports)
	}
	funcs, err := f.BytesAtRVA("export address table", le.Uint32(hdr[28:]), int(nfunc)*4)
	if err != nil {
		return nil, err
	}
	names, err := f.BytesAtRVA("export name table", le.Uint32(hdr[32:]), int(nname)*4)
	if err != nil {
		return nil, err
	}
	ords, err := f.BytesAtRVA("export ordinal table", le.Uint32(hdr[36:]), int(nname)*2)
	if err != nil {
		return nil, err
	}
	budget := maxExportNameBytes
	str := func(what string, rva uint32) (string, error) {
		if budget <= 0 {
			return "", rvaErr(what, rva, "export names past %d bytes", maxExportNameBytes)
		}
		s, err := f.stringAtRVA(what, rva, maxExportName)
		budget -= len(s) + 1
		return s, err
	}
	out := make([]Export, nfunc)
	for i := range out {
		rva := le.Uint32(funcs[i*4:])
		out[i] = Export{Ordinal: base + uint32(i), RVA: rva}
		if rva >= d.RVA && rva-d.RVA < d.Size { // a forwarder string
			if out[i].Forwarder, err = str("export forwarder", rva); err != nil {
				return nil, err
			}
			out[i].RVA = 0
		}
	}
	for i := uint32(0); i < nname; i++ {
		idx := uint32(le.Uint16(ords[i*2:]))
		if idx >= nfunc {
			return nil, rvaErr("export ordinal table", le.Uint32(hdr[36:])+i*2, "index %d of %d functions", idx, nfunc)
		}
		name, err := str("export name", le.Uint32(names[i*4:]))
		if err != nil {
			return nil, err
		}
		if out[idx].Name == "" {
			out[idx].Name = name
		}
	}
	kept := out[:0]
	for _, e := range out {
		if e.RVA != 0 || e.Forwarder != "" { // unused slots of the address table
			kept = append(kept, e)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if (a.Forwarder == "") != (b.Forwarder == "") {
			return a.Forwarder == ""
		}
		return a.RVA < b.RVA
	})
	return kept, nil
}
